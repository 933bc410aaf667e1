/**
 * A checkpoint's own costs, without NATS: N needs put into a store (as the
 * service's first sync does), encoded a slice at a time as the holder writes
 * one, then decoded into a new store as a start loads one. Prints the
 * encode's cost per entry and its longest slice (how long one turn of the
 * event loop is taken), the bytes per entry, the decode's cost per entry, and
 * the decode against `apply` of the same entries, in the same run; and the
 * gzip (level 1, as the writer stores it) and gunzip of the whole.
 *
 *   node dist/bench/checkpoint-load.js [N=1000000] [runs=3]
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { ProjectionStore } from "../src/projections/store/store.js";
import { specFor } from "../src/projections/bucket-specs.js";
import { KNOWN_KINDS } from "../src/reconcile/registry.js";
import { encodeStore } from "../src/projections/store/checkpoint/encode.js";
import { decodeStore } from "../src/projections/store/checkpoint/decode.js";
import { SLICE_ENTRIES } from "../src/checkpoints/writer.js";
import { keyOf, valueOf } from "./common.js";

const n = Number(process.argv[2] ?? 1_000_000);
const runs = Number(process.argv[3] ?? 3);
const spec = specFor("needs", KNOWN_KINDS);
const enc = new TextEncoder();
const values = Array.from({ length: n }, (_, i) => enc.encode(valueOf(i)));
const ms = (t0: number): number => performance.now() - t0;
const UNPACK_CHUNK = 1 << 20;
const us = (t: number): string => ((t * 1000) / n).toFixed(2);

for (let r = 0; r < runs; r++) {
  let t0 = performance.now();
  const store = new ProjectionStore(spec);
  store.expect(n);
  for (let i = 0; i < n; i++) store.apply("PUT", keyOf(i), i + 1, values[i] as Uint8Array);
  const applyMs = ms(t0);

  const encoder = encodeStore(store, { stream: { created: "x", retention: "y" }, writtenAt: 0 });
  const chunks: Uint8Array[] = [];
  let longest = 0;
  t0 = performance.now();
  for (;;) {
    const s = performance.now();
    const c = encoder.next(SLICE_ENTRIES);
    longest = Math.max(longest, ms(s));
    if (c === null) break;
    chunks.push(Buffer.from(c));
  }
  const encodeMs = ms(t0);
  const bytes = Buffer.concat(chunks);
  t0 = performance.now();
  const zipped = gzipSync(bytes, { level: 1 });
  const gzipMs = ms(t0);
  t0 = performance.now();
  gunzipSync(zipped);
  const gunzipMs = ms(t0);

  const unpacked: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += UNPACK_CHUNK) unpacked.push(bytes.subarray(at, at + UNPACK_CHUNK));
  t0 = performance.now();
  const seed = await decodeStore(unpacked, spec);
  const decodeMs = ms(t0);
  if (seed.store.size !== n) throw new Error(`decoded ${seed.store.size} entries, not ${n}`);
  process.stdout.write(
    `run ${r + 1}: apply ${us(applyMs)} µs/entry; encode ${us(encodeMs)} µs/entry, longest slice of ${SLICE_ENTRIES} ${longest.toFixed(1)} ms, ` +
      `${(bytes.length / n).toFixed(1)} B/entry (${(bytes.length / 2 ** 20).toFixed(0)} MiB), ` +
      `gzipped ${(zipped.length / n).toFixed(1)} B/entry, gzip ${gzipMs.toFixed(0)} ms, gunzip ${gunzipMs.toFixed(0)} ms; decode ${us(decodeMs)} µs/entry, ${(decodeMs / applyMs).toFixed(2)}x apply\n`,
  );
}
