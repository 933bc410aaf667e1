import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startStack, type Stack } from "../helpers/stack.js";
import { asAnswered, askOk, put } from "../helpers/verb-pages.js";
import { decodeName, encodeName } from "mesh-provisioner-client/keys";
import { REGISTRY_TABLE } from "../../src/reconcile/registry.js";

const KINDS = new Set(REGISTRY_TABLE.map((v) => v.kind));

/** Values of every sort a node may store: JSON of each type, text that is not JSON, the empty string. */
const VALUES = ['{"default":8080}', "[1,2,3]", "42", '"quoted"', "null", "true", ' { "spaced" : [ ] } ', "not json", "{broken", "", "ünïcödé text"];

type Written = Map<string, { text: string; revision: number }>;

interface Expected {
  key: string;
  [field: string]: unknown;
}

/** What a direct filter over what was written answers, in key order. */
function expected(
  written: Written,
  fieldsOf: (key: string) => Record<string, string>,
  filters: Record<string, string>,
  extra: (fields: Record<string, string>) => Record<string, unknown> = () => ({}),
): Expected[] {
  const out: Expected[] = [];
  for (const key of [...written.keys()].sort()) {
    const w = written.get(key)!;
    const fields = fieldsOf(key);
    if (!Object.entries(filters).every(([f, v]) => fields[f] === v)) continue;
    out.push({ key, ...fields, value: asAnswered(w.text), revision: w.revision, ...extra(fields) });
  }
  return out;
}

const needsFields = (key: string): Record<string, string> => {
  const [node, module, kind, name] = key.split(".") as [string, string, string, string];
  return { node, module, kind, name };
};
const appliedFields = (key: string): Record<string, string> => {
  const [node, module] = key.split(".") as [string, string];
  return { node, module };
};
const collectFields = (key: string): Record<string, string> => {
  const [node, escaped, contributor] = key.split(".") as [string, string, string];
  const d = decodeName(escaped);
  if (!d.ok) throw new Error(`test data: ${escaped} is not a valid escape`);
  return { node, collection: d.name, contributor };
};
const answeredFlag = (f: Record<string, string>): Record<string, unknown> => (KINDS.has(f["kind"] as string) ? {} : { answered: false });

describe("narrowing the verb's answers", () => {
  let stack: Stack;
  const needs: Written = new Map();
  const applied: Written = new Map();
  const collect: Written = new Map();
  const last = { needs: 0, applied: 0, collect: 0 };

  before(async () => {
    stack = await startStack();
    const [kvN, kvA, kvC] = await Promise.all([stack.kv("needs"), stack.kv("applied"), stack.kv("collect")]);
    let v = 0;
    const value = (): string => VALUES[v++ % VALUES.length] as string;
    const write = async (kv: typeof kvN, map: Written, key: string, text: string, which: keyof typeof last): Promise<void> => {
      const revision = await put(kv, key, text);
      map.set(key, { text, revision });
      last[which] = revision;
    };
    for (const node of ["n1", "n2", "n3", "n10"]) {
      for (const module of ["web", "api", "db"]) {
        for (const kind of ["config", "secret", "weird", "port", "shell"]) {
          await write(kvN, needs, `${node}.${module}.${kind}.${kind === "weird" ? "x" : "main"}`, value(), "needs");
        }
        await write(kvA, applied, `${node}.${module}`, value(), "applied");
      }
      for (const collection of ["shell", "shell:zsh:normal", "environment"]) {
        for (const contributor of ["web", "api"]) {
          await write(kvC, collect, `${node}.${encodeName(collection)}.${contributor}`, value(), "collect");
        }
      }
    }
    // Rewrites and deletes: the answer holds the last write, and nothing deleted.
    await write(kvN, needs, "n1.web.config.main", '{"default":9090}', "needs");
    await kvN.delete("n2.db.port.main");
    needs.delete("n2.db.port.main");
    last.needs = await stack.lastSeq("needs");
    await write(kvA, applied, "n3.api", '"rewritten"', "applied");
    await kvC.delete("n10.environment.api");
    collect.delete("n10.environment.api");
    last.collect = await stack.lastSeq("collect");
  });
  after(async () => {
    await stack?.stop();
  });

  const check = async (what: "needs" | "applied" | "collect", filters: Record<string, string>, empty = false): Promise<void> => {
    const [written, fieldsOf, extra] =
      what === "needs" ? [needs, needsFields, answeredFlag] : what === "applied" ? [applied, appliedFields, undefined] : [collect, collectFields, undefined];
    const r = await askOk(stack, { what, ...filters, minRevision: last[what] });
    const want = expected(written, fieldsOf, filters, extra);
    assert.equal(want.length === 0, empty, `test data gives ${what} ${JSON.stringify(filters)} ${empty ? "no" : "some"} entries`);
    assert.deepEqual(r.body.entries, want, `${what} ${JSON.stringify(filters)}`);
    assert.deepEqual(r.body.outOfShape, []);
    assert.equal(r.body.next, undefined);
    assert.equal(r.body.what, what);
    for (const e of r.body.entries as { revision: number }[]) assert.ok(r.body.revision >= e.revision, "the reply's revision is at least every entry's");
    assert.ok(r.body.revision >= last[what]);
  };

  test("needs: everything, by node, and by node and module equal a direct filter over what was written", async () => {
    await check("needs", {});
    for (const node of ["n1", "n2", "n10"]) await check("needs", { node });
    for (const [node, module] of [
      ["n1", "web"],
      ["n2", "db"],
      ["n10", "api"],
    ] as const)
      await check("needs", { node, module });
    // n1 must not pick up n10's keys, nor a module filter another module's.
    await check("needs", { node: "nobody" }, true);
    await check("needs", { node: "n1", module: "nobody" }, true);
  });

  test("needs: module narrowing needs no node", async () => {
    await check("needs", { module: "api" });
  });

  test("applied: by node and by node and module (one key)", async () => {
    await check("applied", {});
    for (const node of ["n1", "n3", "n10"]) await check("applied", { node });
    await check("applied", { node: "n3", module: "api" });
    await check("applied", { node: "n1", module: "nobody" }, true);
  });

  test("collect: by node, contributor, collection, and each combination", async () => {
    await check("collect", {});
    await check("collect", { node: "n2" });
    await check("collect", { contributor: "api" });
    await check("collect", { collection: "shell" });
    await check("collect", { collection: "shell:zsh:normal" });
    await check("collect", { node: "n1", contributor: "web" });
    await check("collect", { node: "n10", collection: "environment" });
    await check("collect", { collection: "environment", contributor: "api" });
    await check("collect", { node: "n3", collection: "shell:zsh:normal", contributor: "api" });
    await check("collect", { node: "n10", collection: "environment", contributor: "api" }, true); // deleted: nothing
  });

  test("answered:false exactly for needs whose kind the registry does not answer (weird), absent for config", async () => {
    const r = await askOk(stack, { what: "needs", minRevision: last.needs });
    for (const e of r.body.entries as { kind: string; answered?: boolean; key: string }[]) {
      if (KINDS.has(e.kind)) assert.ok(!("answered" in e), `${e.key} carries no answered flag`);
      else assert.equal(e.answered, false, e.key);
    }
    const weird = r.body.entries.filter((e: { kind: string }) => e.kind === "weird");
    const config = r.body.entries.filter((e: { kind: string }) => e.kind === "config");
    assert.ok(weird.length > 0 && config.length > 0);
  });

  test("values: JSON is answered parsed, anything else as the string stored", async () => {
    const r = await askOk(stack, { what: "needs", node: "n1", minRevision: last.needs });
    const seen = new Map<string, unknown>(r.body.entries.map((e: { key: string; value: unknown }) => [e.key, e.value]));
    assert.deepEqual(seen.get("n1.web.config.main"), { default: 9090 });
    for (const [key, w] of needs) {
      if (!key.startsWith("n1.")) continue;
      assert.deepEqual(seen.get(key), asAnswered(w.text), `${key} stored ${JSON.stringify(w.text)}`);
    }
    const values = [...seen.values()];
    assert.ok(values.includes("not json") && values.includes("") && values.includes(null) && values.includes(42));
  });

  test("each entry's revision is the revision the KV put returned, and the reply's revision covers them all", async () => {
    for (const [what, written] of [
      ["needs", needs],
      ["applied", applied],
      ["collect", collect],
    ] as const) {
      const r = await askOk(stack, { what, minRevision: last[what] });
      const revs = new Map<string, number>(r.body.entries.map((e: { key: string; revision: number }) => [e.key, e.revision]));
      assert.equal(revs.size, written.size);
      for (const [key, w] of written) assert.equal(revs.get(key), w.revision, key);
      assert.ok(r.body.revision >= Math.max(...revs.values()));
      assert.equal(r.body.revision, await stack.lastSeq(what));
    }
  });
});
