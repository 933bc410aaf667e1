import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startStack, type Stack } from "../helpers/stack.js";
import { askOk, put, until, warnLinesFor } from "../helpers/verb-pages.js";
import type { What } from "mesh-provisioner-client/keys";
import { statsOf as endpointData, type ProjectionStatsWithLag, type StatsReply, type StatsData } from "mesh-provisioner-client/protocol/stats.js";
import { REGISTRY_TABLE } from "../../src/reconcile/registry.js";

interface Bad {
  readonly key: string;
  readonly value: string;
  /** What the reason must say. */
  readonly reason: RegExp;
}

/** Out-of-shape keys the KV client lets a node write, per bucket. */
const BAD: Readonly<Record<What, readonly Bad[]>> = {
  needs: [
    { key: "n1.web.config", value: "x", reason: /4 tokens/ },
    { key: "n1.web.config.port.extra", value: "{}", reason: /4 tokens/ },
    { key: "n2.web.config", value: "x", reason: /4 tokens/ },
  ],
  applied: [
    { key: "n1", value: "{}", reason: /2 tokens/ },
    { key: "n1.web.extra", value: "{}", reason: /2 tokens/ },
  ],
  collect: [
    { key: "n1.shell", value: "{}", reason: /3 tokens/ },
    { key: "n1.shell.c1.extra", value: "{}", reason: /3 tokens/ },
    { key: "n1.abc=3a.c1", value: "{}", reason: /lower-case hex.*=3A/ },
    { key: "n1.=61bc.c1", value: "{}", reason: /needs no escape/ },
    { key: "n1.abc=.c1", value: "{}", reason: /two upper-case hex digits/ },
    { key: "n1.abc=4.c1", value: "{}", reason: /two upper-case hex digits/ },
    { key: "n1.=C3=28.c1", value: "{}", reason: /not valid UTF-8/ },
  ],
  registry: [
    { key: "a.b", value: "{}", reason: /1 token/ },
    { key: "weird", value: JSON.stringify({ kind: "weird", module: "m", verb: "m.v" }), reason: /not a known kind/ },
    { key: "secret", value: "not json", reason: /not JSON/ },
    { key: "config", value: "[1,2]", reason: /not a JSON object/ },
  ],
};

/** One key in shape per node bucket, so entries are not trivially empty. */
const GOOD: Readonly<Record<Exclude<What, "registry">, string>> = {
  needs: "n1.web.config.port",
  applied: "n1.web",
  collect: "n1.shell.c1",
};

const WHATS: readonly What[] = ["registry", "needs", "applied", "collect"];

const statsOf = (stack: Stack): StatsData => stack.provisioner.verb.statsData();

/** The key an entry is stored under (registry entries carry their kind; their `key` is the key shape). */
const storedKey = (what: What, e: { key?: string; kind?: string }): string | undefined => (what === "registry" ? e.kind : e.key);

describe("keys out of their bucket's shape", () => {
  let stack: Stack;
  const lastRevision: Partial<Record<What, number>> = {};

  before(async () => {
    // A registry repair would rewrite or delete the bad registry keys: keep it an hour away.
    stack = await startStack({ driftDelayMs: 3_600_000 });
    // The start-up reconcile has written the table once the registry answers all of it.
    await until(async () => ((await stack.ask({})).body.entries.length === 13 ? true : undefined));
    for (const what of WHATS) {
      const kv = await stack.kv(what);
      if (what !== "registry") lastRevision[what] = await put(kv, GOOD[what], '{"ok":true}');
      for (const b of BAD[what]) lastRevision[what] = await put(kv, b.key, b.value);
    }
  });
  after(async () => {
    await stack?.stop();
  });

  for (const what of WHATS) {
    test(`${what}: every key out of shape is listed in outOfShape with its reason, and never among entries`, async () => {
      const r = await askOk(stack, { what, minRevision: lastRevision[what] });
      const listed = new Map<string, string>(r.body.outOfShape.map((o: { key: string; reason: string }) => [o.key, o.reason]));
      assert.deepEqual([...listed.keys()].sort(), BAD[what].map((b) => b.key).sort());
      for (const b of BAD[what]) {
        const reason = listed.get(b.key);
        assert.equal(typeof reason, "string");
        assert.match(reason as string, b.reason, `reason for ${b.key}`);
      }
      const entryKeys = r.body.entries.map((e: { key?: string; kind?: string }) => storedKey(what, e));
      for (const b of BAD[what]) assert.ok(!entryKeys.includes(b.key), `${b.key} must not be an entry`);
      if (what === "registry") assert.equal(r.body.entries.length, 13 - 2, "secret and config are out of shape, the other 11 kinds answer");
      else assert.deepEqual(entryKeys, [GOOD[what]]);
    });
  }

  test("each bucket's out-of-shape keys are counted in the service's stats and in $SRV.STATS", async () => {
    const stats = statsOf(stack);
    for (const what of WHATS) assert.equal(stats.projections[what].outOfShape, BAD[what].length, what);
    const m = await stack.client.request("$SRV.STATS.mesh-provisioner", "", { timeout: 5000 });
    const data = endpointData(m.json<StatsReply>());
    assert.ok(data, "the endpoint's stats carry the service's data");
    assert.ok(data.projections, "the endpoint's stats carry the projections");
    for (const what of WHATS) assert.equal(data.projections[what].outOfShape, BAD[what].length, `$SRV.STATS ${what}`);
    // Each bucket's revision, entries, sync state and lag behind its stream, and the seat's holder.
    for (const what of WHATS) {
      const p: ProjectionStatsWithLag = data.projections[what];
      assert.equal(p.synced, true, what);
      assert.equal(typeof p.entries, "number", what);
      assert.equal(p.revision, (await stack.jsm.streams.info(`KV_mesh-provisioner_${what}`)).state.last_seq, what);
      assert.equal(p.lag, 0, `${what} has caught up with its stream`);
    }
    const seat = data.seat;
    assert.equal(seat?.isHolder, true);
    assert.equal(seat?.holder?.instance, stack.provisioner.seat.instance);
  });

  test("each out-of-shape key is logged exactly once, however often it is asked for or rewritten with the same fault", async () => {
    for (let i = 0; i < 3; i++) for (const what of WHATS) await askOk(stack, { what });
    // Rewriting a key with the same fault is not news.
    const rev = await put(await stack.kv("needs"), "n1.web.config", "y");
    await askOk(stack, { what: "needs", minRevision: rev });
    lastRevision.needs = rev;
    for (const what of WHATS) {
      for (const b of BAD[what]) {
        const lines = warnLinesFor(stack, b.key);
        assert.equal(lines.length, 1, `${what} ${b.key}: ${JSON.stringify(lines)}`);
        assert.match(String(lines[0]?.["reason"]), b.reason);
      }
    }
  });

  test("an out-of-shape key whose node contradicts the node asked for is omitted", async () => {
    const r = await askOk(stack, { what: "needs", node: "n1" });
    const keys = r.body.outOfShape.map((o: { key: string }) => o.key).sort();
    assert.deepEqual(keys, ["n1.web.config", "n1.web.config.port.extra"]);
    const n2 = await askOk(stack, { what: "needs", node: "n2" });
    assert.deepEqual(
      n2.body.outOfShape.map((o: { key: string }) => o.key),
      ["n2.web.config"],
    );
    assert.deepEqual(n2.body.entries, []);
  });

  test("n1.web.config is listed for node n1 and module web, and omitted for module api", async () => {
    const web = await askOk(stack, { what: "needs", node: "n1", module: "web" });
    assert.ok(web.body.outOfShape.some((o: { key: string }) => o.key === "n1.web.config"));
    const api = await askOk(stack, { what: "needs", node: "n1", module: "api" });
    const apiKeys = api.body.outOfShape.map((o: { key: string }) => o.key);
    assert.ok(!apiKeys.includes("n1.web.config"), JSON.stringify(apiKeys));
    // With one token too many only the node can be read, so the module does not contradict it.
    assert.deepEqual(apiKeys, ["n1.web.config.port.extra"]);
    assert.deepEqual(api.body.entries, []);
  });

  test("collect and applied out-of-shape keys follow the same narrowing rule", async () => {
    const n2 = await askOk(stack, { what: "collect", node: "n2" });
    assert.deepEqual(n2.body.outOfShape, []);
    // A contributor other than c1 contradicts the keys whose contributor can be read.
    const c2 = await askOk(stack, { what: "collect", contributor: "c2" });
    const c2Keys = c2.body.outOfShape.map((o: { key: string }) => o.key).sort();
    assert.deepEqual(c2Keys, ["n1.shell", "n1.shell.c1.extra"]);
    // A bad escape hides the collection, so narrowing by collection cannot rule those keys out.
    const shell = await askOk(stack, { what: "collect", collection: "other" });
    const shellKeys = shell.body.outOfShape.map((o: { key: string }) => o.key).sort();
    assert.ok(!shellKeys.includes("n1.shell"), JSON.stringify(shellKeys));
    assert.ok(shellKeys.includes("n1.abc=3a.c1"), JSON.stringify(shellKeys));
    const applied = await askOk(stack, { what: "applied", node: "n1", module: "api" });
    assert.deepEqual(applied.body.outOfShape.map((o: { key: string }) => o.key).sort(), ["n1", "n1.web.extra"]);
    assert.deepEqual(applied.body.entries, []);
  });

  test("a key that is fixed (deleted, or rewritten in shape) disappears from outOfShape and from the count", async () => {
    const needs = await stack.kv("needs");
    const collect = await stack.kv("collect");
    const registry = await stack.kv("registry");
    const r1 = await needs.delete("n1.web.config").then(() => stack.lastSeq("needs"));
    await collect.delete("n1.abc=3a.c1");
    const r2 = await stack.lastSeq("collect");
    const config = REGISTRY_TABLE.find((v) => v.kind === "config");
    assert.ok(config);
    const r3 = await put(registry, "config", JSON.stringify(config));

    const n = await askOk(stack, { what: "needs", minRevision: r1 });
    assert.ok(!n.body.outOfShape.some((o: { key: string }) => o.key === "n1.web.config"));
    assert.equal(n.body.outOfShape.length, BAD.needs.length - 1);
    const c = await askOk(stack, { what: "collect", minRevision: r2 });
    assert.ok(!c.body.outOfShape.some((o: { key: string }) => o.key === "n1.abc=3a.c1"));
    const g = await askOk(stack, { what: "registry", minRevision: r3 });
    assert.ok(!g.body.outOfShape.some((o: { key: string }) => o.key === "config"));
    assert.ok(
      g.body.entries.some((e: { kind: string }) => e.kind === "config"),
      "the fixed registry key answers again",
    );

    const stats = statsOf(stack);
    assert.equal(stats.projections.needs.outOfShape, BAD.needs.length - 1);
    assert.equal(stats.projections.collect.outOfShape, BAD.collect.length - 1);
    assert.equal(stats.projections.registry.outOfShape, BAD.registry.length - 1);
  });
});
