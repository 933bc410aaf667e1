/**
 * A credentials file read again at every connect (I/O): `--creds` (a `.creds`
 * file: user JWT and seed) and `--nkey` (a seed) name files an operator
 * replaces to rotate them, and the client asks for its credentials at each
 * connect and reconnect.
 *
 * The first read, when the connection's options are built, throws a CONFIG
 * failure: a missing, unreadable or unusable file stops a start before any
 * connect. Every later read never throws: an exception inside the client's
 * authenticator closes the connection for good, so a file that cannot be read
 * or parsed (a writer that does not rename into place, caught half-written)
 * gives the last good content and a warning instead.
 */
import { readFileSync } from "node:fs";
import { credsAuthenticator, nkeyAuthenticator, type Authenticator } from "@nats-io/nats-core";
import type { Logger } from "./log.js";
import { wrapFailure } from "./failure.js";

export type CredentialKind = "creds" | "nkey";

/** What the reader tells a person: a changed identity, and content it could not use. */
export type CredentialLog = Pick<Logger, "info" | "warn">;

const WHAT: Record<CredentialKind, string> = { creds: "credentials (--creds)", nkey: "nkey seed (--nkey)" };

/** The client's authenticator for `bytes` (public API; it parses them when called). */
function authenticatorOf(kind: CredentialKind, bytes: Uint8Array): Authenticator {
  return kind === "creds" ? credsAuthenticator(bytes) : nkeyAuthenticator(bytes);
}

/** The content to authenticate with: a seed file's text without its surrounding whitespace (`nk -gen` ends it with a newline). */
function normalise(kind: CredentialKind, raw: Uint8Array): Uint8Array {
  return kind === "nkey" ? new TextEncoder().encode(new TextDecoder().decode(raw).trim()) : raw;
}

/** The user public key `bytes` authenticate as; throws when they cannot sign (no JWT and seed, or not a seed). */
function identityOf(kind: CredentialKind, bytes: Uint8Array): string {
  const auth = authenticatorOf(kind, bytes)("check") as { nkey?: string; sig?: string };
  if (!auth.nkey || !auth.sig) throw new Error("it holds no user seed that can sign");
  return auth.nkey;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export interface CredentialFile {
  readonly path: string;
  readonly kind: CredentialKind;
  /** The user public key the current content authenticates as. */
  readonly user: string;
  /** The content to connect with now: the file's, or the last good one (never throws). */
  read(): Uint8Array;
  /** An authenticator that reads the file at each call, so one connect uses one consistent content. */
  authenticator(): Authenticator;
}

/**
 * Open the credentials file at `path`: read and check it now (a CONFIG
 * failure naming the file if that fails), then again at each `read()`.
 */
export function credentialFile(kind: CredentialKind, path: string, log?: CredentialLog): CredentialFile {
  const load = (): { bytes: Uint8Array; user: string } => {
    const bytes = normalise(kind, readFileSync(path));
    return { bytes, user: identityOf(kind, bytes) };
  };
  let good: { bytes: Uint8Array; user: string };
  try {
    good = load();
  } catch (err) {
    const how = typeof (err as NodeJS.ErrnoException).syscall === "string" ? "cannot read" : "cannot use";
    throw wrapFailure("CONFIG", `${how} the ${WHAT[kind]} file ${path}`, err);
  }
  let warned: string | undefined;
  const file: CredentialFile = {
    path,
    kind,
    get user() {
      return good.user;
    },
    read() {
      try {
        const now = load();
        warned = undefined;
        if (!sameBytes(now.bytes, good.bytes)) {
          const before = good.user;
          good = now;
          log?.info({ file: path, user: now.user, before }, `the ${WHAT[kind]} file changed: connecting with its new content`);
        }
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        if (warned !== why) {
          warned = why;
          log?.warn(
            { file: path, user: good.user, err: why },
            `cannot use the ${WHAT[kind]} file now (${why}): connecting with its last good content; ` +
              "replace the file by writing a new one and renaming it into place",
          );
        }
      }
      return good.bytes;
    },
    authenticator() {
      return (nonce?: string) => authenticatorOf(kind, file.read())(nonce);
    },
  };
  return file;
}
