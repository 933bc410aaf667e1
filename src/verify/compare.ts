/**
 * Comparing two answers for the same bucket (pure): what a running instance
 * answers against what the bucket itself holds. Entries are compared as parsed
 * JSON, key by key; out-of-shape keys by key and reason.
 */
import { isDeepStrictEqual } from "node:util";
import type { Answer } from "mesh-provisioner-client";

export interface Difference {
  readonly what: string;
  readonly key: string;
  readonly problem: "missing from the projection" | "not in the bucket" | "differs" | "out-of-shape differs";
  readonly projection?: unknown;
  readonly bucket?: unknown;
}

const entryKey = (what: string, e: Record<string, unknown>): string => String(what === "registry" ? e["kind"] : e["key"]);

export function compareAnswers(what: string, projection: Answer, bucket: Answer): Difference[] {
  const out: Difference[] = [];
  const p = new Map(projection.entries.map((e) => [entryKey(what, e), e]));
  const b = new Map(bucket.entries.map((e) => [entryKey(what, e), e]));
  for (const [k, be] of b) {
    const pe = p.get(k);
    if (pe === undefined) out.push({ what, key: k, problem: "missing from the projection", bucket: be });
    else if (!isDeepStrictEqual(pe, be)) out.push({ what, key: k, problem: "differs", projection: pe, bucket: be });
  }
  for (const [k, pe] of p) if (!b.has(k)) out.push({ what, key: k, problem: "not in the bucket", projection: pe });
  const po = new Map(projection.outOfShape.map((o) => [o.key, o.reason]));
  const bo = new Map(bucket.outOfShape.map((o) => [o.key, o.reason]));
  for (const k of new Set([...po.keys(), ...bo.keys()])) {
    if (po.get(k) !== bo.get(k)) out.push({ what, key: k, problem: "out-of-shape differs", projection: po.get(k), bucket: bo.get(k) });
  }
  return out.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}
