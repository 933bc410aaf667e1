/**
 * What this instance did with checkpoints (pure): per projection, how its
 * start went (from a checkpoint, or the bucket read whole and why), and the
 * checkpoints it wrote while holding the seat. Read by /metrics and
 * `$SRV.STATS`.
 */
import type { FallbackReason } from "./stream-identity.js";
import type { CheckpointCounts } from "mesh-provisioner-client/protocol/stats.js";

export type { CheckpointCounts };

export class CheckpointTally {
  private readonly byName = new Map<string, CheckpointCounts>();

  private of(name: string): CheckpointCounts {
    let c = this.byName.get(name);
    if (c === undefined) this.byName.set(name, (c = { start: "none", fallbacks: {}, written: 0, bytesWritten: 0, failed: 0 }));
    return c;
  }

  loading(name: string, revision: number): void {
    const c = this.of(name);
    c.start = "pending";
    c.loadedRevision = revision;
    delete c.reason;
  }

  proven(name: string): void {
    this.of(name).start = "checkpoint";
  }

  fellBack(name: string, reason: FallbackReason): void {
    const c = this.of(name);
    c.start = "full";
    c.reason = reason;
    c.fallbacks[reason] = (c.fallbacks[reason] ?? 0) + 1;
  }

  wrote(name: string, revision: number, bytes: number, ms: number, at: Date): void {
    const c = this.of(name);
    c.written++;
    c.bytesWritten += bytes;
    c.lastRevision = revision;
    c.lastWriteMs = ms;
    c.lastWrittenAt = at.toISOString();
  }

  writeFailed(name: string): void {
    this.of(name).failed++;
  }

  snapshot(): Record<string, CheckpointCounts> {
    return Object.fromEntries([...this.byName].map(([n, c]) => [n, { ...c, fallbacks: { ...c.fallbacks } }]));
  }
}
