/**
 * Plain tokens (docs/protocol.md, "Keys"): a token is a non-empty piece of a key between dots,
 * made only of `A-Z a-z 0-9 - _ / =`.
 */

/** A plain token: non-empty, only A-Z a-z 0-9 - _ / =. */
export const TOKEN_RE: RegExp = /^[A-Za-z0-9_/=-]+$/;

/** The allowed characters, in words, for reasons a person reads. */
export const TOKEN_CHARS = "A-Z a-z 0-9 - _ / =";

/** True when `s` is a string and a plain token. */
export function isPlainToken(s: unknown): s is string {
  return typeof s === "string" && TOKEN_RE.test(s);
}

/** The tokens of a key, in order (empty tokens included, so they can be reported). */
export function splitKey(key: string): string[] {
  return key.split(".");
}

/** null when `t` is a plain token; otherwise a short reason. */
export function tokenProblem(t: string): string | null {
  if (t.length === 0) return "empty token";
  if (TOKEN_RE.test(t)) return null;
  return `token ${JSON.stringify(t)} has characters outside ${TOKEN_CHARS}`;
}
