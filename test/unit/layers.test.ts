/**
 * The arrows point down (docs/architecture.md): every import in src/ from
 * one concept's folder to another's goes to a lower layer. A new folder, or
 * an import that points up or sideways, fails here with the edge named.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const src = fileURLToPath(new URL("../../../src/", import.meta.url));

/** Each concept's layer: a file may import its own concept's files and any lower layer's. */
const LAYER: Readonly<Record<string, number>> = {
  failure: 0,
  schemas: 0,
  bytes: 1,
  log: 1,
  size: 1,
  duration: 1,
  version: 1,
  heap: 1,
  stop: 1,
  within: 0,
  embedded: 1,
  permissions: 2,
  streams: 3,
  "projections/store": 4,
  projections: 5,
  overview: 6,
  reconcile: 6,
  verb: 6,
  feed: 6,
  seat: 6,
  checkpoints: 6,
  http: 7,
  defaults: 7,
  dump: 8,
  metrics: 8,
  verify: 8,
  config: 8,
  "credential-file": 8,
  connect: 9,
  main: 10,
  cli: 11,
};

/** The concept a file of src/ belongs to: its folder (the store's own inside projections), or a top-level file's name. */
function conceptOf(file: string): string {
  const parts = relative(src, file).split(sep);
  if (parts.length === 1) return (parts[0] as string).replace(/\.ts$/, "");
  if (parts[0] === "projections" && parts[1] === "store") return "projections/store";
  return parts[0] as string;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

/** Every import from one concept to another: `from -> to (file: specifier)`. */
function crossImports(): { from: string; to: string; where: string }[] {
  const edges: { from: string; to: string; where: string }[] = [];
  for (const file of sources(src)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      const target = normalize(join(dirname(file), (m[1] as string).replace(/\.js$/, ".ts")));
      const from = conceptOf(file);
      const to = conceptOf(target);
      if (from !== to) edges.push({ from, to, where: `${relative(src, file)}: ${m[1]}` });
    }
  }
  return edges;
}

test("every import between concepts of src/ points to a lower layer", () => {
  const edges = crossImports();
  assert.ok(edges.length > 50, `the imports are read (${edges.length})`);
  const unknown = [...new Set(edges.flatMap((e) => [e.from, e.to]))].filter((c) => LAYER[c] === undefined);
  assert.deepEqual(unknown, [], "every concept of src/ has a layer in this test");
  const up = edges.filter((e) => (LAYER[e.to] as number) >= (LAYER[e.from] as number)).map((e) => `${e.from} -> ${e.to} (${e.where})`);
  assert.deepEqual(up, [], "imports that point up or sideways");
});
