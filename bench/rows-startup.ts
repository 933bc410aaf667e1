/**
 * The rows of a start-up the way a mesh restarts (startup.ts): one instance
 * and three at once against the raw KV watch, each while the nodes write;
 * the answers at the last revision before the start; the consumer creations.
 */
import { CONTEXT, row, type Row } from "./report.js";
import { ratio } from "./measured.js";
import type { StartupResult } from "./startup.js";

export function startupRows(s: StartupResult): Row[] {
  const last = Math.max(...s.three.map((i) => i.syncMs));
  const asked = (xs: StartupResult["three"]): string => xs.map((i) => `${i.all.asked}/${i.all.retried}/${i.all.timedOut}`).join(", ");
  return [
    row({
      metric: `start-up of one instance while nodes write ${s.rate}/s: spawn -> answering (baseline: the raw KV watch started the same way)`,
      unit: "ms",
      service: s.one.syncMs,
      baseline: s.rawMs,
      ratio: ratio(s.one.syncMs, s.rawMs),
      target: "<= 1.5x raw watch",
      check: { kind: "atMost", limit: 1.5, of: "ratio" },
    }),
    row({
      metric: `start-up of three instances at once while nodes write ${s.rate}/s: spawn -> the last answering (baseline: the raw KV watch alone)`,
      unit: "ms",
      service: last,
      baseline: s.rawMs,
      ratio: ratio(last, s.rawMs),
      target: "<= 1.5x raw watch",
      check: { kind: "atMost", limit: 1.5, of: "ratio" },
    }),
    row({
      metric: `three at once: wrong answers of ${s.check.asks} asked at the revision before the start (minRevision ${s.check.revisionBefore}), and instances short of the stream after the writes (each answered ${s.check.perInstance.join(", ")})`,
      unit: "",
      service: s.check.wrong.length + s.check.lost.length + s.check.perInstance.filter((n) => n === 0).length,
      target: "0",
      check: { kind: "atMost", limit: 0, of: "service" },
    }),
    row({
      metric: `consumer creations asked / retried / timed out: one instance ${asked([s.one])}; three at once ${asked(s.three)} (all buckets; a retried creation asks again for the one that timed out)`,
      unit: "",
      service: s.three.reduce((n, i) => n + i.all.retried + i.all.timedOut, 0) + s.one.all.retried + s.one.all.timedOut,
      target: CONTEXT,
      check: undefined,
    }),
  ];
}
