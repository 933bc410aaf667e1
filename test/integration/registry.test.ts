import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startStack, type Stack } from "../helpers/stack.js";
import { REGISTRY_TABLE } from "../../src/reconcile/registry.js";
import { until } from "../helpers/verb-pages.js";

const KINDS = REGISTRY_TABLE.map((v) => v.kind).sort();

describe("the registry", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack?.stop();
  });

  test("a first start writes the 13 kinds of the compiled table and answers them sorted by kind", async () => {
    const reply = await until(async () => {
      const r = await stack.ask({});
      return r.status === 200 && r.body.entries.length === 13 ? r : undefined;
    });
    assert.deepEqual(
      reply.body.entries.map((e: { kind: string }) => e.kind),
      KINDS,
    );
    const secret = reply.body.entries.find((e: { kind: string }) => e.kind === "secret");
    assert.deepEqual(secret.value, { kind: "secret", module: "mesh-vault", verb: "mesh-vault.secret" });
    assert.equal(secret.bucket, undefined);
    assert.equal(await stack.lastSeq("registry"), 13);
  });

  test("a restart with an unchanged table writes nothing at all", async () => {
    const before = await stack.lastSeq("registry");
    await stack.stopService();
    await stack.restartService();
    const report = await stack.provisioner.reconciler.run("manual");
    assert.ok(report);
    assert.equal(report.unchanged.length, 13);
    assert.equal(await stack.lastSeq("registry"), before);
  });

  test("a changed, an added and a deleted registry key are repaired soon after, writing only those", async () => {
    const kv = await stack.kv("registry");
    await kv.put("secret", JSON.stringify({ kind: "secret", module: "someone-else", verb: "x" }));
    await kv.put("bogus", "{}");
    await kv.delete("port");
    const seqAfterTampering = await stack.lastSeq("registry");
    await until(async () => {
      const e = await kv.get("secret");
      const p = await kv.get("port");
      const b = await kv.get("bogus");
      return e?.json<{ module: string }>().module === "mesh-vault" && p?.operation === "PUT" && b?.operation === "DEL" ? true : undefined;
    });
    // Exactly three repairs: the update, the re-create and the delete.
    await until(async () => ((await stack.lastSeq("registry")) === seqAfterTampering + 3 ? true : undefined));
    const reply = await stack.ask({});
    assert.deepEqual(
      reply.body.entries.map((e: { kind: string }) => e.kind),
      KINDS,
    );
    assert.deepEqual(reply.body.outOfShape, []);
  });

  test("a registry value with other spacing and key order is equal and left alone", async () => {
    const kv = await stack.kv("registry");
    const cur = (await kv.get("secret"))!;
    const v = cur.json<Record<string, unknown>>();
    const reordered = Object.fromEntries(Object.entries(v).reverse());
    await kv.put("secret", JSON.stringify(reordered, null, 2));
    const seq = await stack.lastSeq("registry");
    const report = await stack.provisioner.reconciler.run("manual");
    assert.equal(report?.unchanged.length, 13);
    assert.equal(await stack.lastSeq("registry"), seq);
  });
});
