/**
 * Every exit status of the command line's table (src/cli/exit-codes.ts)
 * happens, as docs/troubleshooting.md says: 2 and 3 in cli.test.ts, 1 in
 * verify.test.ts, and here the ones that need a server set up to fail.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { ExitCodes } from "../../src/cli/exit-codes.js";
import { EMBEDDED, killAll, run } from "../helpers/cli-run.js";

const MiB = 1024 * 1024;

describe("the exit statuses a user can meet", () => {
  let plain: RunningNatsServer;
  let tiny: RunningNatsServer;

  before(async () => {
    plain = await startNatsServer({ jetstream: true });
    tiny = await startNatsServer({ jetstream: true, maxFileStore: 2 * MiB });
  });

  after(async () => {
    killAll();
    await plain?.stop();
    await tiny?.stop();
  });

  test("4 (E_BUCKET): serve on a server whose JetStream store cannot hold the buckets", async () => {
    const r = await run(["serve", "--server", tiny.url], { ...process.env }, 60_000);
    assert.equal(r.signal, null, `it exits by itself: ${r.stderr.slice(-500)}`);
    assert.equal(r.code, ExitCodes.BUCKET, r.stderr.slice(-1500));
    assert.match(r.stderr, /\[E_BUCKET\]/);
  });

  test("7 (E_EMBEDDED_SERVER): npm start told of a nats-server that is not there", async () => {
    const r = await run([], { ...process.env, NATS_SERVER_BIN: "/nonexistent/nats-server" }, 30_000, EMBEDDED);
    assert.equal(r.code, ExitCodes.EMBEDDED_SERVER, r.stderr);
    assert.match(r.stderr, /NATS_SERVER_BIN is set to \/nonexistent\/nats-server.*\[E_EMBEDDED_SERVER\]/);
  });

  test("8 (E_NO_ANSWER): query where no instance answers", async () => {
    const r = await run(["query", "registry", "--server", plain.url, "--timeout", "1000"], { ...process.env }, 30_000);
    assert.equal(r.code, ExitCodes.VERB, r.stderr);
    assert.match(r.stderr, /no answer from mesh-provisioner\.provisioning.*\[E_NO_ANSWER\]/);
  });

  test("2 (E_CONFIG), not 8: a narrowing the verb would refuse is refused before asking, where the server is up and no instance answers", async () => {
    for (const args of [
      ["needs", "--node", "a.b"],
      ["registry", "--node", "n1"],
      ["collect", "--scope", "needs"],
    ]) {
      const r = await run(["query", ...args, "--server", plain.url, "--timeout", "1000"], { ...process.env }, 30_000);
      assert.equal(r.code, ExitCodes.CONFIG, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /^mesh-provisioner: --(node|scope) .*\[E_CONFIG\]\n$/, args.join(" "));
    }
  });
});
