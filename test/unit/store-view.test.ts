/**
 * A projection's readers get its store as a `StoreView`: reads only, the
 * same object for the projection's life. The type-level half of this file is
 * checked by tsc: each `@ts-expect-error` line fails the build the day the
 * write it names becomes reachable from a reader without a cast.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Subject } from "rxjs";
import { Projection } from "../../src/projections/projection.js";
import { needsSpec } from "../../src/projections/bucket-specs.js";
import { memoryLogger } from "../../src/log.js";
import type { WatchEvent } from "../../src/streams/kv-watch.js";
import type { StoreView } from "../../src/projections/store/view.js";
import type { ProjectionStore } from "../../src/projections/store/store.js";

/** The store's members that change it. */
type Writers = "apply" | "adopt" | "expect" | "markSynced" | "observeWith";

/** True only when the view names none of the writers (and each writer is a member of the store, so a rename fails here too). */
const viewHasNoWriters: [Extract<keyof StoreView, Writers>] extends [never] ? ([Writers] extends [keyof ProjectionStore] ? true : false) : false = true;

/** Never called: compiled only, for its expected errors. */
function readersCannotWrite(p: Projection, view: StoreView, enc: Uint8Array): void {
  // @ts-expect-error the view has no apply
  view.apply("PUT", "n1.m.config.a", 1, enc);
  // @ts-expect-error nor adopt
  view.adopt(view);
  // @ts-expect-error nor markSynced
  view.markSynced(1);
  // @ts-expect-error nor expect
  view.expect(10);
  // @ts-expect-error its revision is read-only
  view.revision = 7;
  // @ts-expect-error the projection's writable store is its own
  p.writable.apply("PUT", "n1.m.config.a", 1, enc);
  // @ts-expect-error a projection's store cannot be replaced
  p.store = view;
}

const enc = new TextEncoder();
const put = (key: string, revision: number): WatchEvent => ({ type: "entry", entry: { operation: "PUT", key, revision, value: enc.encode('"v"') } });

test("the view a projection hands its readers has no write methods, and stays the same object through a rebuild", () => {
  assert.equal(viewHasNoWriters, true);
  assert.equal(typeof readersCannotWrite, "function");

  const watch = new Subject<WatchEvent>();
  const p = new Projection(needsSpec, memoryLogger("error").log);
  p.connect(watch);
  const held: StoreView = p.store;
  watch.next(put("n1.m.config.a", 1));
  watch.next(put("n1.m.config.b", 2));
  watch.next({ type: "synced", lastSeq: 2 });
  assert.deepEqual(held.entryKeys(), ["n1.m.config.a", "n1.m.config.b"]);

  // The history is gone: a fresh snapshot is built aside and moved into the store readers hold.
  watch.next({ type: "resuming", reason: "cut", fromRevision: 2 });
  watch.next({ type: "rebuilding", fromRevision: 2, firstSeq: 9 });
  watch.next(put("n1.m.config.c", 9));
  assert.deepEqual(held.entryKeys(), ["n1.m.config.a", "n1.m.config.b"], "readers see the old content until the rebuild's sync");
  watch.next({ type: "synced", lastSeq: 9 });

  assert.equal(p.store, held, "the same object");
  assert.deepEqual(held.entryKeys(), ["n1.m.config.c"]);
  assert.equal(held.revision, 9);
  assert.equal(held.get("n1.m.config.c")?.revision, 9);
});

const src = fileURLToPath(new URL("../../../src/", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

test("only the projections import the store itself; readers import its view", () => {
  const store = join(src, "projections", "store", "store.ts");
  const importers: string[] = [];
  for (const file of sources(src)) {
    for (const m of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      if (normalize(join(dirname(file), (m[1] as string).replace(/\.js$/, ".ts"))) === store) importers.push(relative(src, file));
    }
  }
  assert.ok(importers.length > 0, "the imports are read");
  assert.deepEqual(
    importers.filter((f) => !f.startsWith(`projections${sep}`)),
    [],
    "files outside src/projections/ that import store.ts",
  );
});
