import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { credentialFile, type CredentialLog } from "../../src/credential-file.js";
import { Failure } from "../../src/failure.js";
import { jetstreamOperator, tempDir, userNkey } from "../helpers/credential-material.js";

/** A logger that keeps what it was told. */
function notes(): CredentialLog & { info: CredentialLog["info"]; lines: { level: string; fields: Record<string, unknown>; msg: string }[] } {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at =
    (level: string) =>
    (fields: unknown, msg?: unknown): void =>
      void lines.push({ level, fields: fields as Record<string, unknown>, msg: String(msg) });
  return { info: at("info"), warn: at("warn"), lines } as never;
}

/** Replace `path` the way an operator should: write a new file and rename it into place. */
function replace(path: string, text: string): void {
  writeFileSync(`${path}.new`, text, { mode: 0o600 });
  renameSync(`${path}.new`, path);
}

const authAs = (a: unknown): { jwt?: string; nkey?: string; sig?: string } => a as { jwt?: string; nkey?: string; sig?: string };

test("a creds file replaced on disk is read at the next connect, and the change is logged with the new user", () => {
  const tmp = tempDir("mesh-credfile-");
  try {
    const op = jetstreamOperator();
    const [a, b] = [op.user("a"), op.user("b")];
    const path = join(tmp.dir, "svc.creds");
    writeFileSync(path, a.creds);
    const log = notes();
    const file = credentialFile("creds", path, log);
    assert.equal(file.user, a.publicKey);
    const auth = file.authenticator();
    assert.equal(authAs(auth("nonce")).nkey, a.publicKey);
    assert.equal(log.lines.length, 0, "an unchanged file is not news");

    replace(path, b.creds);
    const now = authAs(auth("nonce"));
    assert.equal(now.nkey, b.publicKey);
    assert.ok(now.jwt && b.creds.includes(now.jwt), "the JWT is the new file's");
    assert.ok(now.sig, "the nonce is signed with the new seed");
    assert.equal(file.user, b.publicKey);
    assert.deepEqual(
      log.lines.map((l) => [l.level, l.fields["user"], l.fields["before"]]),
      [["info", b.publicKey, a.publicKey]],
    );
    assert.match(log.lines[0]!.msg, /the credentials \(--creds\) file changed/);
  } finally {
    tmp.remove();
  }
});

test("a creds file that cannot be read or parsed at a reconnect gives the last good content and one warning, never an exception", () => {
  const tmp = tempDir("mesh-credfile-");
  try {
    const op = jetstreamOperator();
    const [a, b] = [op.user("a"), op.user("b")];
    const path = join(tmp.dir, "svc.creds");
    writeFileSync(path, a.creds);
    const log = notes();
    const file = credentialFile("creds", path, log);
    const auth = file.authenticator();

    // Half-written, as by a writer that truncates and writes in place.
    writeFileSync(path, b.creds.slice(0, Math.floor(b.creds.length / 2)));
    assert.equal(authAs(auth("n1")).nkey, a.publicKey);
    assert.equal(authAs(auth("n2")).nkey, a.publicKey);
    // Gone, between an unlink and a write.
    rmSync(path);
    assert.equal(authAs(auth("n3")).nkey, a.publicKey);
    const warnings = log.lines.filter((l) => l.level === "warn");
    assert.equal(warnings.length, 2, "one warning per distinct problem, not one per attempt");
    assert.match(warnings[0]!.msg, /cannot use the credentials \(--creds\) file now \(unable to parse credentials\): connecting with its last good content/);
    assert.match(String(warnings[1]!.fields["err"]), /ENOENT/);
    assert.equal(warnings[0]!.fields["user"], a.publicKey);

    writeFileSync(path, b.creds);
    assert.equal(authAs(auth("n4")).nkey, b.publicKey, "once whole again, the new content is used");
  } finally {
    tmp.remove();
  }
});

test("a missing, unreadable or unusable credentials file is a CONFIG failure naming it when the options are built", () => {
  const tmp = tempDir("mesh-credfile-");
  try {
    const missing = join(tmp.dir, "none.creds");
    assert.throws(
      () => credentialFile("creds", missing),
      (e: unknown) => e instanceof Failure && e.kind === "CONFIG" && e.message.startsWith(`cannot read the credentials (--creds) file ${missing}: ENOENT`),
    );
    assert.throws(
      () => credentialFile("nkey", tmp.dir),
      (e: unknown) => e instanceof Failure && e.kind === "CONFIG" && e.message.startsWith(`cannot read the nkey seed (--nkey) file ${tmp.dir}: EISDIR`),
    );
    const junk = join(tmp.dir, "junk.creds");
    writeFileSync(junk, "not a creds file\n");
    assert.throws(
      () => credentialFile("creds", junk),
      (e: unknown) =>
        e instanceof Failure && e.kind === "CONFIG" && e.message === `cannot use the credentials (--creds) file ${junk}: unable to parse credentials`,
    );
    const notSeed = join(tmp.dir, "bad.nk");
    writeFileSync(notSeed, "SUAGARBAGE\n");
    assert.throws(
      () => credentialFile("nkey", notSeed),
      (e: unknown) => e instanceof Failure && e.kind === "CONFIG" && e.message.startsWith(`cannot use the nkey seed (--nkey) file ${notSeed}: `),
    );
  } finally {
    tmp.remove();
  }
});

test("an nkey seed file (with its trailing newline) replaced on disk signs with the new seed at the next connect", () => {
  const tmp = tempDir("mesh-credfile-");
  try {
    const first = userNkey(tmp.dir, "svc.nk");
    const second = userNkey(tmp.dir, "next.nk");
    const log = notes();
    const file = credentialFile("nkey", first.seedFile, log);
    const auth = file.authenticator();
    assert.equal(authAs(auth("nonce")).nkey, first.publicKey);
    replace(first.seedFile, readFileSync(second.seedFile, "utf8"));
    assert.equal(authAs(auth("nonce")).nkey, second.publicKey);
    assert.match(log.lines[0]!.msg, /the nkey seed \(--nkey\) file changed/);
    writeFileSync(first.seedFile, "");
    assert.equal(authAs(auth("nonce")).nkey, second.publicKey, "an emptied file keeps the last good seed");
    assert.equal(log.lines.filter((l) => l.level === "warn").length, 1);
  } finally {
    tmp.remove();
  }
});
