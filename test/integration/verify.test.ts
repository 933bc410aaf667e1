import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startStack, type Stack } from "../helpers/stack.js";
import { writableStore } from "../helpers/writable-store.js";

const run = promisify(execFile);
const BIN = new URL("../../../bin/mesh-provisioner", import.meta.url).pathname;

async function verify(stack: Stack): Promise<{ code: number; out: { differences: { what: string; key: string; problem: string }[] } }> {
  try {
    const { stdout } = await run("node", [BIN, "verify", "--json", "--attempts", "1", "--server", stack.server.url], { timeout: 30_000 });
    return { code: 0, out: JSON.parse(stdout) };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: JSON.parse(e.stdout) };
  }
}

describe("mesh-provisioner verify", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
    const needs = await stack.kv("needs");
    await needs.put("n1.web.config.port", '{"default":8080}');
    await needs.put("n1.web.config", "out of shape");
    await (await stack.kv("collect")).put("n1.shell=3Azsh.web", '"zsh"');
  });
  after(async () => {
    await stack?.stop();
  });

  test("a running instance whose projections equal the buckets verifies clean (exit 0)", async () => {
    const r = await verify(stack);
    assert.equal(r.code, 0);
    assert.deepEqual(r.out.differences, []);
  });

  test("every difference between a projection and its bucket is reported, with exit 1", async () => {
    const store = writableStore(stack.provisioner.projections.needs.store);
    const rev = store.revision;
    // Corrupt the running instance's projection behind its watch's back: a key the bucket never had,
    // and a key the bucket has but the projection lost.
    store.apply("PUT", "n9.ghost.config.x", rev + 1000, new TextEncoder().encode("{}"));
    store.apply("DEL", "n1.web.config.port", rev + 1001, new Uint8Array());
    const r = await verify(stack);
    assert.equal(r.code, 1);
    assert.deepEqual(
      r.out.differences.map((d) => [d.what, d.key, d.problem]),
      [
        ["needs", "n1.web.config.port", "missing from the projection"],
        ["needs", "n9.ghost.config.x", "not in the bucket"],
      ],
    );
  });
});
