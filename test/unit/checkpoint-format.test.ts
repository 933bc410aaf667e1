import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ProjectionStore } from "../../src/projections/store/store.js";
import { appliedSpec, collectSpec, needsSpec } from "../../src/projections/bucket-specs.js";
import type { BucketSpec } from "../../src/projections/store/spec.js";
import { CheckpointError, CHECKPOINT_FORMAT_VERSION } from "../../src/projections/store/checkpoint/format.js";
import { encodeStore } from "../../src/projections/store/checkpoint/encode.js";
import { decodeStore } from "../../src/projections/store/checkpoint/decode.js";
import { MeshOverview, type NodeBucket } from "../../src/overview/overview.js";
import { DEFAULT_FLOOD_LIMITS } from "../../src/defaults.js";
import { encodeName } from "mesh-provisioner-client/keys";

const enc = new TextEncoder();
const META = { stream: { created: "2026-12-04T00:00:00Z" }, writtenAt: 1 };

/** A store of `spec` with `put` applied in order, revisions counting from 1. */
function storeOf(spec: BucketSpec, puts: readonly (readonly [string, string | null])[]): ProjectionStore {
  const s = new ProjectionStore(spec, { segmentBytes: 4096 });
  let rev = 0;
  for (const [key, value] of puts) s.apply(value === null ? "DEL" : "PUT", key, ++rev, enc.encode(value ?? ""));
  return s;
}

/** Encode in slices of `slice` entries, as the writer does; the slices, as a reader gets them. */
function encode(store: ProjectionStore, slice = 7): Buffer[] {
  const e = encodeStore(store, META);
  const parts: Buffer[] = [];
  for (let c = e.next(slice); c !== null; c = e.next(slice)) parts.push(Buffer.from(c));
  return parts;
}

/** `bytes` cut into chunks of the sizes `sizes` gives in turn (the last size repeated). */
function chunked(bytes: Buffer, sizes: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = sizes[Math.min(i, sizes.length - 1)] as number;
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

/** Everything a reader can see of a store. */
function content(s: ProjectionStore): unknown {
  const scanKeys = (filters: Record<string, string>): string[] => {
    const scan = s.scan(filters, undefined);
    const keys: string[] = [];
    for (let slot = scan.next(); slot >= 0; slot = scan.next()) keys.push(s.keyOf(slot));
    return keys;
  };
  const nodes = [...new Set(s.entryKeys().map((k) => k.slice(0, k.indexOf("."))))];
  return {
    revision: s.revision,
    entries: [...s.allEntries()].map((e) => [e.key, e.revision, e.json, e.kind ?? null]),
    kinds: [...s.kinds()].sort(),
    byNode: nodes.map((node) => [node, scanKeys({ node })]),
    outOfShape: [...s.allOutOfShape()].map((o) => [o.key, o.revision, o.reason]),
    markers: [...s.markerKeys()].sort(),
    heldKeys: s.heldKeys,
  };
}

/** Needs of 40 nodes (several slices), rewritten and deleted, a value that is not JSON, keys out of shape. */
function needsPuts(): [string, string | null][] {
  const puts: [string, string | null][] = [];
  for (let n = 0; n < 40; n++)
    for (const m of ["api", "web"]) for (const k of ["config", "port", "secret"]) puts.push([`n${n}.${m}.${k}.x${n % 3}`, JSON.stringify({ n, m })]);
  puts.push(["n3.web.config.x0", "not json at all"], ["n4.api.port.x1", null], ["n5.api.port.x2", null]);
  puts.push(["bad key with spaces", "{}"], ["n6..config.x", "{}"], ["n7.web.config.x1", '{"again":true}']);
  return puts;
}

describe("a checkpoint written and read back", () => {
  test("holds the same needs store: entries, their JSON and revisions, kinds, node ranges, keys out of shape and delete markers", async () => {
    const store = storeOf(needsSpec, needsPuts());
    const back = await decodeStore(encode(store), needsSpec);
    assert.equal(back.revision, store.revision);
    assert.deepEqual(back.store.get("n3.web.config.x0")?.json, store.get("n3.web.config.x0")?.json);
    assert.deepEqual(content(back.store), content(store));
    assert.equal(back.store.size, 40 * 6 - 2);
  });

  test("read in chunks of any size, from one byte on, it loads the same store", async () => {
    const store = storeOf(needsSpec, needsPuts());
    const whole = Buffer.concat(encode(store));
    for (const sizes of [[1], [3, 1, 4096], [whole.length - 1], [11, 7, 5, 3, 2]]) {
      const back = await decodeStore(chunked(whole, sizes), needsSpec);
      assert.deepEqual(content(back.store), content(store), JSON.stringify(sizes));
    }
  });

  test("a loaded store goes on like the one it was written from: puts, deletes and new keys among the loaded ones", async () => {
    const store = storeOf(needsSpec, needsPuts());
    const back = (await decodeStore(encode(store), needsSpec)).store;
    let rev = store.revision;
    for (const s of [store, back]) {
      let r = rev;
      s.apply("PUT", "n10.api.config.x1", ++r, enc.encode('{"new":1}'));
      s.apply("DEL", "n11.web.port.x2", ++r, enc.encode(""));
      s.apply("PUT", "n10.aaa.config.first", ++r, enc.encode("1"));
      for (let i = 0; i < 600; i++) s.apply("PUT", `n20.mid.config.k${i}`, ++r, enc.encode(String(i)));
    }
    rev += 603;
    assert.deepEqual(content(back), content(store));
    assert.equal(back.revision, rev);
  });

  test("property: a loaded store and the one it was written from stay alike through any puts and deletes after it", async () => {
    const keyOf = (i: number): string => `n${i % 9}.m${i % 4}.${["config", "port", "secret"][i % 3]}.k${i}`;
    const ops = fc.array(fc.tuple(fc.integer({ min: 0, max: 80 }), fc.option(fc.integer({ min: 0, max: 999 }), { freq: 3 })), { maxLength: 150 });
    await fc.assert(
      fc.asyncProperty(ops, ops, async (before, after) => {
        const store = storeOf(
          needsSpec,
          before.map(([i, v]) => [keyOf(i), v === null ? null : JSON.stringify({ v })]),
        );
        const back = (await decodeStore(encode(store, 5), needsSpec)).store;
        const from = store.revision;
        for (const s of [store, back]) {
          let r = from;
          for (const [i, v] of after) s.apply(v === null ? "DEL" : "PUT", keyOf(i), ++r, enc.encode(JSON.stringify({ v })));
        }
        assert.deepEqual(content(back), content(store));
        assert.equal(back.size, store.size);
        for (let i = 0; i <= 80; i++) assert.equal(back.get(keyOf(i))?.json, store.get(keyOf(i))?.json, keyOf(i));
      }),
      { numRuns: 150 },
    );
  });

  test("applied entries, written without their heads, come back byte for byte", async () => {
    const store = storeOf(appliedSpec, [
      ["n1.web", '{"at":"2026-12-04"}'],
      ["n1.api", "plain text"],
      ["n22.dns-cache", "{}"],
      ["n3.x", null],
    ]);
    const back = (await decodeStore(encode(store, 2), appliedSpec)).store;
    assert.deepEqual(content(back), content(store));
    assert.equal(back.get("n1.api")?.json, '{"key":"n1.api","node":"n1","module":"api","value":"plain text","revision":2}');
  });

  test("a collect store keeps its collection and contributor indexes", async () => {
    const puts: [string, string][] = [];
    for (let n = 0; n < 12; n++) for (const c of ["dns servers", "peers"]) puts.push([`n${n}.${encodeName(c)}.c${n % 4}`, String(n)]);
    const store = storeOf(collectSpec, puts);
    const back = (await decodeStore(encode(store, 5), collectSpec)).store;
    const keys = (s: ProjectionStore, filters: Record<string, string>): string[] => {
      const scan = s.scan(filters, undefined);
      const out: string[] = [];
      for (let slot = scan.next(); slot >= 0; slot = scan.next()) out.push(s.keyOf(slot));
      return out;
    };
    const narrowings: Record<string, string>[] = [{ collection: "dns servers" }, { contributor: "c2" }, { node: "n3" }, { node: "n3", collection: "peers" }];
    for (const filters of narrowings) assert.deepEqual(keys(back, filters), keys(store, filters), JSON.stringify(filters));
    assert.equal(keys(back, { collection: "peers" }).length, 12);
  });

  test("the overview told of a loaded store counts what the overview told of each put counts", async () => {
    const SPECS = { needs: needsSpec, applied: appliedSpec, collect: collectSpec } as const;
    const answered = new Set(["config", "port"]);
    const live = new MeshOverview(
      (k) => answered.has(k),
      () => 0,
      { limits: DEFAULT_FLOOD_LIMITS },
    );
    const loaded = new MeshOverview(
      (k) => answered.has(k),
      () => 0,
      { limits: DEFAULT_FLOOD_LIMITS },
    );
    const puts: Record<NodeBucket, [string, string | null][]> = {
      needs: needsPuts(),
      applied: [
        ["n1.web", "{}"],
        ["n1.api", "{}"],
        ["n2.web", "{}"],
        ["x y", "{}"],
      ],
      collect: [
        [`n1.${encodeName("dns")}.a`, "1"],
        [`n1.${encodeName("dns")}.b`, "2"],
        [`n2.${encodeName("ntp")}.a`, "3"],
      ],
    };
    for (const w of ["needs", "applied", "collect"] as const) {
      const observed = new ProjectionStore(SPECS[w], { observer: live.observerFor(w) });
      let rev = 0;
      for (const [key, value] of puts[w]) observed.apply(value === null ? "DEL" : "PUT", key, ++rev, enc.encode(value ?? ""));
      (await decodeStore(encode(observed), SPECS[w])).store.observeWith(loaded.observerFor(w));
    }
    assert.deepEqual(loaded.totals(), live.totals());
    assert.deepEqual(loaded.kinds(), live.kinds());
    assert.deepEqual(loaded.collections(), live.collections());
    const rows = (o: MeshOverview): unknown => o.page({ limit: 500 }).rows.map(({ last: _last, ...r }) => r);
    assert.deepEqual(rows(loaded), rows(live));
    assert.equal(loaded.row("n1")?.needs, 6);
  });
});

/**
 * The checkpoint's records (after its header) changed by `edit`. Bytes changed
 * on the way are gzip's CRC-32's and the object digest's to catch (the
 * integration tests flip a stored byte); what the reader checks itself is
 * that the bytes it is given make a checkpoint.
 */
function tampered(bytes: Buffer, edit: (b: Buffer, recordsAt: number) => void): Buffer {
  const b = Buffer.from(bytes);
  edit(b, 12 + b.readUInt32LE(8));
  return b;
}

/** Where an entries block's columns start: after its type, count, record bytes and layout. */
const COLUMNS_AT = 10;

/** Where the first entries block starts (after the kinds block the writer puts first). */
function firstEntries(b: Buffer, at: number): number {
  if (b[at] === 4) {
    const n = b.readUInt32LE(at + 1);
    at += 5;
    for (let i = 0; i < n; i++) at += 2 + b.readUInt16LE(at);
  }
  assert.equal(b[at], 1, "an entries block");
  return at;
}

describe("a checkpoint that cannot be used is refused with its reason, and nothing is loaded", () => {
  const bytes = Buffer.concat(encode(storeOf(needsSpec, needsPuts())));
  const refused = (b: Buffer, reason: string, message: RegExp): Promise<void> =>
    assert.rejects(
      () => decodeStore([b], needsSpec),
      (err: unknown) => err instanceof CheckpointError && err.reason === reason && message.test(err.message),
    );

  test("cut short anywhere, it is refused as not whole", async () => {
    for (const cut of [3, 20, bytes.length >> 2, bytes.length >> 1, bytes.length - 13, bytes.length - 1])
      await refused(bytes.subarray(0, cut), "corrupt", /not whole/);
  });

  test("bytes after its trailer are refused", async () => {
    await refused(Buffer.concat([bytes, Buffer.from([0])]), "corrupt", /follow its trailer/);
  });

  test("another format version (a checkpoint of an earlier service) is refused as such", async () => {
    const b = Buffer.from(bytes);
    b.writeUInt32LE(CHECKPOINT_FORMAT_VERSION - 1, 4);
    await refused(b, "format-version", new RegExp(`version ${CHECKPOINT_FORMAT_VERSION - 1}; this service reads version ${CHECKPOINT_FORMAT_VERSION}`));
  });

  test("keys out of order are refused rather than loaded", async () => {
    const b = tampered(bytes, (b, at) => {
      const block = firstEntries(b, at);
      const n = b.readUInt32LE(block + 1);
      const keyed = b[block + 9] === 1;
      const records = block + COLUMNS_AT + n * 18;
      b[records + (keyed ? 0 : 8)] = 0x7e; // the first key now starts with "~", after the second
    });
    await refused(b, "corrupt", /not in order/);
  });

  test("an entry whose lengths overrun its records is refused", async () => {
    const b = tampered(bytes, (b, at) => {
      const block = firstEntries(b, at);
      b.writeUInt32LE(b.readUInt32LE(block + COLUMNS_AT + 2) + 5, block + COLUMNS_AT + 2);
    });
    await refused(b, "corrupt", /do not add up|do not fit|not in order/);
  });

  test("an entry naming a kind no kinds block named is refused", async () => {
    const b = tampered(bytes, (b, at) => {
      const block = firstEntries(b, at);
      b.writeInt32LE(9999, block + COLUMNS_AT + 14);
    });
    await refused(b, "corrupt", /kind id 9999/);
  });

  test("records written without their heads for a bucket whose keys do not make them (collect) are refused", async () => {
    const store = storeOf(collectSpec, [[`n1.${encodeName("dns")}.a`, "1"]]);
    const b = tampered(Buffer.concat(encode(store)), (b, at) => {
      b[firstEntries(b, at) + 9] = 1;
    });
    await assert.rejects(
      () => decodeStore([b], collectSpec),
      (err: unknown) => err instanceof CheckpointError && err.reason === "corrupt" && /without the head/.test(err.message),
    );
  });

  test("a key listed out of shape that is in shape is refused", async () => {
    const store = storeOf(needsSpec, [
      ["n1.web.config.a", "1"],
      ["bad key", "1"],
    ]);
    const b = tampered(Buffer.concat(encode(store)), (b) => {
      // A key of the same length, in shape: the record's length stays right.
      b.write("a.b.c.d", b.indexOf("bad key", 0, "latin1"), "latin1");
    });
    await refused(b, "corrupt", /is in shape/);
  });
});
