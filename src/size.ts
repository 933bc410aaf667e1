/** Sizes as the command line takes them: `65536`, `64KiB`, `16MiB`, `1GiB` (also KB, MB, GB as powers of 1000). */
import { Failure } from "./failure.js";

const UNIT: Record<string, number> = {
  "": 1,
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
};

export function parseSize(text: string, what = "size"): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = UNIT[(m?.[2] ?? "").toLowerCase()];
  const bytes = m && unit !== undefined ? Math.round(Number(m[1]) * unit) : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new Failure("CONFIG", `${what} "${text}" is not a size: write a positive number of bytes, or with a unit, such as 64KiB, 16MiB or 1GiB`);
  }
  return bytes;
}

export function formatSize(bytes: number): string {
  for (const [unit, n] of [
    ["GiB", 1024 ** 3],
    ["MiB", 1024 ** 2],
    ["KiB", 1024],
  ] as const) {
    if (bytes >= n && bytes % n === 0) return `${bytes / n}${unit}`;
  }
  return `${bytes}B`;
}
