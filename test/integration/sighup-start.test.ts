/**
 * A reload (SIGHUP) that reaches `serve` while it is still starting does not
 * end it: the handler is in place before start-up, and the connection being
 * made reads the credentials files as they are then.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { ExitCodes } from "../../src/cli/exit-codes.js";
import { killAll, start } from "../helpers/cli-run.js";

after(() => killAll());

test("a SIGHUP while serve is still connecting leaves its start to end by itself (here: exit 3, the server never answers)", async () => {
  // A listener that accepts and never speaks: the client waits for the server's INFO until its connect timeout.
  const sockets: Socket[] = [];
  let connected!: () => void;
  const sawConnection = new Promise<void>((resolve) => (connected = resolve));
  const silent = createServer((s) => {
    sockets.push(s);
    connected();
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = silent.address() as AddressInfo;
    const serving = start(["serve", "--server", `nats://127.0.0.1:${port}`], { ...process.env, LOG_FORMAT: "json" });
    await sawConnection;
    serving.child.kill("SIGHUP");
    const ran = await serving.exited;
    assert.equal(ran.signal, null, `serve was ended by ${ran.signal}:\n${ran.stderr}`);
    assert.equal(ran.code, ExitCodes.CONNECT, ran.stderr);
  } finally {
    for (const s of sockets) s.destroy();
    silent.close();
  }
});
