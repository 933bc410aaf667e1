/**
 * Drift as an instance sees it (pure): each time the registry projection is
 * compared with the compiled table, whether it differs. A drift is counted
 * when the registry goes from equal to different; the difference a fresh
 * bucket starts with (nothing written yet) is not a drift, since the bucket
 * has never equalled the table.
 */
export class DriftTally {
  /** Times the registry went from equal to the table to different from it. */
  drifts = 0;
  /** Whether it differed at the last comparison. */
  drifted = false;
  private matched = false;

  compared(differs: boolean): void {
    if (differs && !this.drifted && this.matched) this.drifts++;
    if (!differs) this.matched = true;
    this.drifted = differs;
  }
}
