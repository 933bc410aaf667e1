/**
 * Each role's credentials in operator (JWT) mode, made as docs/security.md
 * says: the provisioner's and the operator's as users of a scoped signing key
 * whose template is the role's printed grant (`nsc edit signing-key --role …`,
 * `nsc add user -K …`), a node's with its grant inside its own JWT (`nsc add
 * user --allow-pub … --allow-sub …`). `serve`, `query`, `dump` and `verify`
 * run with `--creds` alone; a grant as long as the provisioner's inside a
 * user JWT is dropped by the server, which is why the docs use signing keys.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { credsAuthenticator } from "@nats-io/nats-core";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { grantFor, inboxPrefix } from "../../src/permissions/grants.js";
import { BIN, Fleet } from "../helpers/processes.js";
import { jetstreamOperator, tempDir, type MintedUser } from "../helpers/credential-material.js";

const SYNCED = "all projections synced: answering from them";

/** Run the command line with no ambient NATS_* setting. */
function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_FORMAT: "json" };
  for (const k of Object.keys(env)) if (k.startsWith("NATS_")) delete env[k];
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === "number" ? err.code : -1, stdout, stderr });
    });
  });
}

describe("each role's credentials in operator (JWT) mode", () => {
  const tmp = tempDir("mesh-jwt-roles-");
  const op = jetstreamOperator({ provisioner: grantFor("provisioner"), operator: grantFor("operator") });
  let server: RunningNatsServer;
  let fleet: Fleet;

  /** The user's creds file, as `nsc generate creds` writes it. */
  const credsFile = (u: MintedUser): string => {
    const path = join(tmp.dir, `${u.name}.creds`);
    writeFileSync(path, u.creds, { mode: 0o600 });
    return path;
  };

  before(async () => {
    server = await startNatsServer({ configText: op.serverConfig(join(tmp.dir, "jwt")) });
    fleet = new Fleet({ server: server.url, env: { LOG_FORMAT: "json" } });
    const serve = fleet.spawn({ args: ["--creds", credsFile(op.user("mesh-provisioner", "provisioner"))], name: "serve" });
    await serve.waitForLine((l) => l.msg === SYNCED, 30_000, SYNCED);
  });

  after(async () => {
    await fleet?.killAll();
    await server?.stop();
    tmp.remove();
  });

  test("query, dump and verify run with the operator's creds file alone", async () => {
    const creds = ["--server", server.url, "--creds", credsFile(op.user("operator", "operator"))];
    const q = await run(["query", "registry", "--json", ...creds]);
    assert.equal(q.code, 0, q.stderr);
    assert.ok((JSON.parse(q.stdout) as { entries: unknown[] }).entries.length > 0);
    const d = await run(["dump", ...creds]);
    assert.equal(d.code, 0, d.stderr);
    const v = await run(["verify", ...creds]);
    assert.equal(v.code, 0, v.stderr + v.stdout);
    assert.match(v.stdout, /the projections equal the buckets/);
  });

  test("a node's and a provider's users with their grants in their own JWTs ask their own subjects; the node is refused the mesh's", async () => {
    const n1 = ["--server", server.url, "--creds", credsFile(op.inlineUser("node-n1", grantFor("node", "n1"))), "--inbox-prefix", inboxPrefix("node", "n1")];
    const own = await run(["query", "needs", "--json", "--scope", "node:n1", ...n1]);
    assert.equal(own.code, 0, own.stderr);
    const mesh = await run(["query", "needs", ...n1]);
    assert.equal(mesh.code, 3, mesh.stderr);
    assert.match(mesh.stderr, /permissions violation: the server refused publish on mesh-provisioner\.provisioning;/);
    const provider = [
      "--server",
      server.url,
      "--creds",
      credsFile(op.inlineUser("provider-1", grantFor("provider"))),
      "--inbox-prefix",
      inboxPrefix("provider"),
    ];
    const needs = await run(["query", "needs", "--json", "--scope", "needs", ...provider]);
    assert.equal(needs.code, 0, needs.stderr);
  });

  test("the provisioner's grant inside a user JWT makes a CONNECT over the server's default max_control_line: the server drops it", async () => {
    const inline = op.inlineUser("too-long", grantFor("provisioner"));
    await assert.rejects(
      connect({ servers: server.url, authenticator: credsAuthenticator(new TextEncoder().encode(inline.creds)), timeout: 2000, reconnect: false }),
    );
    // The same user's grant from its role's signing key connects.
    const scoped = op.user("short", "provisioner");
    const nc = await connect({ servers: server.url, authenticator: credsAuthenticator(new TextEncoder().encode(scoped.creds)), timeout: 2000 });
    await nc.close();
  });
});
