/** Durations as the command line takes them: `500ms`, `3s`, `2m`, `1h`, or a sum like `1h30m`. */
import { Failure } from "./failure.js";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

export function parseDuration(text: string, what = "duration"): number {
  const s = text.trim();
  let total = 0;
  let consumed = 0;
  for (const m of s.matchAll(PART)) {
    if (m.index !== consumed) break;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    consumed += m[0].length;
  }
  total = Math.round(total);
  if (s.length === 0 || consumed !== s.length || !Number.isFinite(total) || total <= 0) {
    throw new Failure("CONFIG", `${what} "${text}" is not a duration: write a positive number with a unit, such as 500ms, 3s, 2m or 1h`);
  }
  return total;
}

/** The least and the most a duration setting may be, written as durations (src/defaults.ts). */
export interface DurationBounds {
  readonly min: string;
  readonly max: string;
}

/**
 * A duration within `bounds`. `bareMs`: a bare whole number is milliseconds
 * (for a flag that took milliseconds before it took units).
 */
export function parseBoundedDuration(text: string, what: string, bounds: DurationBounds, bareMs = false): number {
  const bare = bareMs && /^\s*\d+\s*$/.test(text);
  const ms = bare ? Number(text) : parseDuration(text, what);
  if (ms < parseDuration(bounds.min) || ms > parseDuration(bounds.max)) {
    const said = bare ? " (a bare number is milliseconds)" : "";
    throw new Failure("CONFIG", `${what} "${text}"${said} is out of range: write a duration from ${bounds.min} to ${bounds.max}`);
  }
  return ms;
}

export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
