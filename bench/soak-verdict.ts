/**
 * Whether a process's resident memory levels off, from samples taken while
 * it works (pure).
 *
 * RSS under load is a sawtooth: garbage piles up between collections and
 * drops at each. Its peaks move with when the collector happens to run, so
 * what the process keeps shows in the troughs: the *floor*, the least RSS of
 * each window of time. The verdict is the slope of the floors over the
 * second half of the run, fitted by least squares. The first half is left
 * out: it holds the warm-up (the JIT, the heap growing to its working size,
 * buffers reaching their high-water marks), which would read as a rise.
 *
 * Windows are counted back from the last sample, whole ones only, so every
 * floor is the least of as many samples (a short window's least would sit
 * higher, and at the end it would read as a rise). A short run gets windows
 * short enough for MIN_WINDOWS of them; its slope per hour is then an
 * extrapolation and the caller says so.
 *
 * The same rule also judges what the process holds apart from V8's free
 * heap (`heldSamples`): RSS less the part of the heap V8 has reserved and
 * not filled. V8 grows that reserve to its next collection's limit and gives
 * it back when it sees fit, so it moves RSS's floor by tens of MiB from one
 * window to the next; what is left is the heap in use, the memory outside
 * the heap and the code, which is where a leak shows.
 */

export interface RssSample {
  /** ms from the start of the run (the same origin for every sample). */
  readonly atMs: number;
  readonly rssBytes: number;
}

export interface Floor {
  /** The middle of the window, ms from the start of the run. */
  readonly atMs: number;
  readonly rssMiB: number;
}

export type VerdictState = "levels off" | "still rising" | "too few samples";

export interface FloorVerdict {
  readonly state: VerdictState;
  /** Fitted slope of the floors, MiB per hour (NaN with too few samples). */
  readonly slopeMiBPerHour: number;
  readonly toleranceMiBPerHour: number;
  /** The window each floor is the least of, ms. */
  readonly windowMs: number;
  /** The second half's floors, oldest first. */
  readonly floors: readonly Floor[];
  /** One line: the state and the figures it rests on. */
  readonly text: string;
}

export interface VerdictOptions {
  /** The floor's window, ms, shortened when the second half holds fewer than MIN_WINDOWS of them. */
  readonly windowMs: number;
  /** A floor rising by at most this much per hour levels off. */
  readonly toleranceMiBPerHour: number;
}

/** Fewer floors than this and a slope says nothing: the verdict is "too few samples". */
export const MIN_WINDOWS = 4;
/** Nor when a window holds fewer samples than this on average: a floor is the least of several reads, not one read. */
export const MIN_SAMPLES_PER_WINDOW = 3;
const MIB = 1024 * 1024;
const HOUR_MS = 3_600_000;

/** One minute's reading of RSS and of the JS heap (MiB, NaN when not read). */
export interface MinuteMemory {
  readonly minute: number;
  readonly rssMiB: number;
  readonly heapUsedMiB: number;
  readonly heapTotalMiB: number;
}

/** RSS less V8's free heap (reserved, not in use), one sample a minute; minutes with a reading missing are left out. */
export function heldSamples(rows: readonly MinuteMemory[]): RssSample[] {
  const out: RssSample[] = [];
  for (const r of rows) {
    const held = r.rssMiB - (r.heapTotalMiB - r.heapUsedMiB);
    if (Number.isFinite(held)) out.push({ atMs: r.minute * 60_000, rssBytes: held * MIB });
  }
  return out;
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
  }
  return sxx === 0 ? Number.NaN : sxy / sxx;
}

/** The floor of each whole window of the second half, oldest first; windows without a sample are left out. */
export function secondHalfFloors(samples: readonly RssSample[], windowMs: number): Floor[] {
  const ok = samples.filter((s) => Number.isFinite(s.rssBytes) && Number.isFinite(s.atMs));
  if (ok.length < 2 || !(windowMs > 0)) return [];
  const first = ok[0]!.atMs;
  const last = ok[ok.length - 1]!.atMs;
  const halfSpan = (last - first) / 2;
  // Whole windows only; the tiny epsilon keeps a half that is an exact multiple of the window from losing one to rounding.
  const count = Math.floor(halfSpan / windowMs + 1e-9);
  const floors: Floor[] = [];
  for (let k = count - 1; k >= 0; k--) {
    const end = last - k * windowMs;
    const start = end - windowMs;
    // (start, end]: each sample belongs to one window; the first window starts just after the half.
    let least = Number.POSITIVE_INFINITY;
    for (const s of ok) if (s.atMs > start && s.atMs <= end && s.rssBytes < least) least = s.rssBytes;
    if (least !== Number.POSITIVE_INFINITY) floors.push({ atMs: end - windowMs / 2, rssMiB: least / MIB });
  }
  return floors;
}

export function floorVerdict(samples: readonly RssSample[], o: VerdictOptions, what = "the RSS floor"): FloorVerdict {
  const span = samples.length >= 2 ? samples[samples.length - 1]!.atMs - samples[0]!.atMs : 0;
  const windowMs = Math.min(o.windowMs, span / 2 / MIN_WINDOWS);
  const floors = windowMs > 0 ? secondHalfFloors(samples, windowMs) : [];
  const tol = o.toleranceMiBPerHour;
  const base = { toleranceMiBPerHour: tol, windowMs, floors };
  const inFloors = floors.length ? samples.filter((s) => s.atMs > floors[0]!.atMs - windowMs / 2).length : 0;
  if (floors.length < MIN_WINDOWS || inFloors < MIN_SAMPLES_PER_WINDOW * floors.length) {
    const text = `too few samples: ${floors.length} floor(s) of ${inFloors} samples in the second half; at least ${MIN_WINDOWS} floors of ${MIN_SAMPLES_PER_WINDOW} samples each needed`;
    return { ...base, state: "too few samples", slopeMiBPerHour: Number.NaN, text };
  }
  const perHour = slope(floors.map((f) => ({ x: f.atMs / HOUR_MS, y: f.rssMiB })));
  const figures = `over the second half (${floors.length} floors, each the least of ${fmtWindow(windowMs)}; tolerance ${tol} MiB/h)`;
  if (perHour <= tol) {
    const signed = `${perHour >= 0 ? "+" : ""}${perHour.toFixed(1)}`;
    return { ...base, state: "levels off", slopeMiBPerHour: perHour, text: `levels off: ${what} moved ${signed} MiB/h ${figures}` };
  }
  return { ...base, state: "still rising", slopeMiBPerHour: perHour, text: `still rising by ${perHour.toFixed(1)} MiB/h ${figures}` };
}

function fmtWindow(ms: number): string {
  return ms >= 60_000 ? `${(ms / 60_000).toFixed(ms % 60_000 === 0 ? 0 : 1)} min` : `${(ms / 1000).toFixed(0)} s`;
}
