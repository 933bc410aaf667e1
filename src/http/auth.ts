/**
 * The dashboard's token check (pure): with a token configured, a request
 * passes with `Authorization: Bearer <token>`, or with `?access_token=<token>`
 * (a browser's EventSource cannot send headers). Compared in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (s: string): Buffer => createHash("sha256").update(s).digest();

/** A check of a request's credentials: always true without a token. */
export function tokenCheck(token: string | undefined): (authorization: string | undefined, accessToken: string | null) => boolean {
  if (token === undefined) return () => true;
  const want = digest(token);
  // Hashing both sides gives equal lengths, so the comparison's time says nothing about the token.
  const same = (given: string): boolean => timingSafeEqual(digest(given), want);
  return (authorization, accessToken) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (m !== null) return same(m[1] as string);
    return accessToken !== null && same(accessToken);
  };
}
