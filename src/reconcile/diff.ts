/**
 * The registry's diff (pure): what must be written so the bucket equals the
 * compiled table. Values are compared as parsed JSON, never as bytes, so a
 * value written with other spacing or key order is left alone.
 */
import { isDeepStrictEqual } from "node:util";
import type { RegistryValue } from "./registry.js";

/** What the registry projection holds for one key: its revision and parsed value (undefined when out of shape). */
export interface Observed {
  readonly revision: number;
  readonly value: unknown;
}

/** `revision`: the revision the diff saw the key at; on servers that offer it safely the write is conditional on it (apply.ts). */
export type Operation =
  | { readonly type: "create"; readonly kind: string; readonly value: RegistryValue }
  | { readonly type: "update"; readonly kind: string; readonly value: RegistryValue; readonly revision: number }
  | { readonly type: "delete"; readonly kind: string; readonly revision: number };

export interface Plan {
  readonly operations: readonly Operation[];
  readonly unchanged: readonly string[];
}

export function diffRegistry(desired: ReadonlyMap<string, RegistryValue>, observed: ReadonlyMap<string, Observed>): Plan {
  const operations: Operation[] = [];
  const unchanged: string[] = [];
  for (const [kind, value] of [...desired].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const seen = observed.get(kind);
    if (seen === undefined) operations.push({ type: "create", kind, value });
    else if (isDeepStrictEqual(normalize(seen.value), normalize(value))) unchanged.push(kind);
    else operations.push({ type: "update", kind, value, revision: seen.revision });
  }
  for (const [kind, seen] of [...observed].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!desired.has(kind)) operations.push({ type: "delete", kind, revision: seen.revision });
  }
  return { operations, unchanged };
}

/** A value as JSON would carry it (drops undefined fields, plain objects only). */
function normalize(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}
