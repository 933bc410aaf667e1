/**
 * How many keys a projection held after each revision it applied, from one
 * point on (pure): what a count taken of the stream at a revision it has
 * since gone past is compared with. Revisions are recorded in increasing
 * order; one that changes nothing may be recorded again.
 */
export class CountTally {
  private revisions = new Float64Array(256);
  private counts = new Float64Array(256);
  private length = 0;

  constructor(revision: number, count: number) {
    this.record(revision, count);
  }

  record(revision: number, count: number): void {
    const n = this.length;
    if (n > 0 && this.revisions[n - 1] === revision) {
      this.counts[n - 1] = count;
      return;
    }
    if (n === this.revisions.length) {
      const revisions = new Float64Array(n * 2);
      revisions.set(this.revisions);
      this.revisions = revisions;
      const counts = new Float64Array(n * 2);
      counts.set(this.counts);
      this.counts = counts;
    }
    this.revisions[n] = revision;
    this.counts[n] = count;
    this.length = n + 1;
  }

  /** The count after the last revision recorded at or below `revision`; undefined when counting began after it. */
  at(revision: number): number | undefined {
    let lo = 0;
    let hi = this.length - 1;
    if (hi < 0 || (this.revisions[0] as number) > revision) return undefined;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.revisions[mid] as number) <= revision) lo = mid;
      else hi = mid - 1;
    }
    return this.counts[lo];
  }
}
