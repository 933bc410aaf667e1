/**
 * Reading node's `--trace-gc` lines: which kind of collection, and how long
 * the main thread stood still for it. A line looks like
 *
 *   [pid:0x...]   12345 ms: Mark-Compact 120.5 (130.1) -> 100.2 (131.3) MB, 12.34 / 0.00 ms  (+ 5.2 ms in 30 steps since start of marking, biggest step 1.2 ms, ...) ...
 *   [pid:0x...]   12345 ms: Scavenge 10.1 (12.0) -> 9.8 (13.0) MB, 1.23 / 0.00 ms  (average mu = ...) ...
 *
 * The first number after the MB part is the pause. A mark-compact's
 * incremental steps ran earlier, each a pause of its own; the biggest is
 * kept apart (`longestStepMs`), not mixed into the pause.
 */

export type GcKind = "markCompact" | "scavenge" | "other";

/** Issue 11's bound on a single pause: how many went over it is counted apart. */
export const LONG_PAUSE_MS = 10;

export interface GcEvent {
  kind: GcKind;
  pauseMs: number;
  /** A mark-compact's biggest incremental marking step, ms (0 when none is named). */
  stepMs: number;
}

const LINE = /: ([A-Za-z][A-Za-z -]*?(?: \([a-z ]+\))?) [\d.]+ \([\d.]+\) -> [\d.]+ \([\d.]+\) MB, ([\d.]+) \/ [\d.]+ ms/;
const STEP = /biggest step ([\d.]+) ms/;

/** The collection a `--trace-gc` line reports, or undefined for any other line. */
export function parseGcLine(line: string): GcEvent | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  const name = m[1]!;
  const kind: GcKind = name.startsWith("Mark-Compact") ? "markCompact" : name.startsWith("Scavenge") ? "scavenge" : "other";
  const step = STEP.exec(line);
  return { kind, pauseMs: Number(m[2]), stepMs: step ? Number(step[1]) : 0 };
}

/** Collections counted over a window, with the longest pause of each kind. */
export interface GcWindow {
  markCompact: number;
  scavenge: number;
  other: number;
  /** Longest single pause, ms, of each kind and overall (0 when there was none). */
  longestMarkCompactMs: number;
  longestScavengeMs: number;
  longestMs: number;
  /** Longest incremental marking step of a mark-compact, ms. */
  longestStepMs: number;
  /** Collections whose pause was over LONG_PAUSE_MS (absent from results written before it was counted). */
  overLong?: number;
}

export const emptyGcWindow = (): GcWindow => ({
  markCompact: 0,
  scavenge: 0,
  other: 0,
  longestMarkCompactMs: 0,
  longestScavengeMs: 0,
  longestMs: 0,
  longestStepMs: 0,
  overLong: 0,
});

/** Add one collection to a window. */
export function addGc(w: GcWindow, e: GcEvent): void {
  w[e.kind]++;
  if (e.kind === "markCompact") w.longestMarkCompactMs = Math.max(w.longestMarkCompactMs, e.pauseMs);
  if (e.kind === "scavenge") w.longestScavengeMs = Math.max(w.longestScavengeMs, e.pauseMs);
  w.longestMs = Math.max(w.longestMs, e.pauseMs);
  w.longestStepMs = Math.max(w.longestStepMs, e.stepMs);
  if (e.pauseMs > LONG_PAUSE_MS) w.overLong = (w.overLong ?? 0) + 1;
}

/** Add the collection a `--trace-gc` line reports, if it is one, to `w` (none: nothing is counted). */
export function addGcLine(w: GcWindow | undefined, line: string): void {
  if (w === undefined) return;
  const e = parseGcLine(line);
  if (e) addGc(w, e);
}

/** Several windows as one: counts added, longest of the longest. */
export function mergeGc(windows: readonly GcWindow[]): GcWindow {
  const out = emptyGcWindow();
  for (const w of windows) {
    out.markCompact += w.markCompact;
    out.scavenge += w.scavenge;
    out.other += w.other;
    out.longestMarkCompactMs = Math.max(out.longestMarkCompactMs, w.longestMarkCompactMs);
    out.longestScavengeMs = Math.max(out.longestScavengeMs, w.longestScavengeMs);
    out.longestMs = Math.max(out.longestMs, w.longestMs);
    out.longestStepMs = Math.max(out.longestStepMs, w.longestStepMs);
    out.overLong = (out.overLong ?? 0) + (w.overLong ?? 0);
  }
  return out;
}
