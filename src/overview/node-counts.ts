/**
 * One node's counts in the mesh overview (pure): its needs per module and per
 * kind, the modules applied, its collect items, bytes and keys out of shape
 * per bucket, and its last change. The overview holds one per node, so its
 * size is paid once per node of the mesh: fields, not arrays or maps.
 */
import { NameCounts } from "./name-counts.js";
import type { NodeBucket, NodeRow } from "./overview.js";

export const BUCKET_IDS: Record<NodeBucket, number> = { needs: 0, applied: 1, collect: 2 };
const BUCKET_NAMES: readonly NodeBucket[] = ["needs", "applied", "collect"];

/** One node's counts. A few hundred bytes each: the overview holds one per node of the mesh. */
export class NodeCounts {
  needs = 0;
  readonly needsByModule = new NameCounts();
  readonly needsByKind = new NameCounts();
  /** The modules with an applied key (a count of 1 each). */
  readonly appliedModules = new NameCounts();
  collect = 0;
  // Bytes of its entries as held, and keys out of shape, per bucket: fields, not arrays (no array per node).
  needsBytes = 0;
  appliedBytes = 0;
  collectBytes = 0;
  needsOutOfShape = 0;
  appliedOutOfShape = 0;
  collectOutOfShape = 0;
  // The last change, as three fields: a change allocates nothing (a first sync applies a million).
  lastBucket = -1;
  lastRevision = 0;
  lastAt = 0;

  get outOfShapeCount(): number {
    return this.needsOutOfShape + this.appliedOutOfShape + this.collectOutOfShape;
  }

  get bytes(): number {
    return this.needsBytes + this.appliedBytes + this.collectBytes;
  }

  get keys(): number {
    return this.needs + this.appliedModules.size + this.collect + this.outOfShapeCount;
  }

  get empty(): boolean {
    return this.needs === 0 && this.appliedModules.size === 0 && this.collect === 0 && this.outOfShapeCount === 0;
  }

  get last(): NodeRow["last"] {
    if (this.lastBucket < 0) return null;
    return { what: BUCKET_NAMES[this.lastBucket] as NodeBucket, revision: this.lastRevision, at: this.lastAt === 0 ? null : this.lastAt };
  }

  addBytes(what: NodeBucket, by: number): void {
    if (what === "needs") this.needsBytes += by;
    else if (what === "applied") this.appliedBytes += by;
    else this.collectBytes += by;
  }

  addOutOfShape(what: NodeBucket, by: number): void {
    if (what === "needs") this.needsOutOfShape += by;
    else if (what === "applied") this.appliedOutOfShape += by;
    else this.collectOutOfShape += by;
  }

  /** Forget one bucket's part. */
  clear(what: NodeBucket): void {
    if (what === "needs") {
      this.needs = 0;
      this.needsByModule.clear();
      this.needsByKind.clear();
      this.needsBytes = 0;
      this.needsOutOfShape = 0;
    } else if (what === "applied") {
      this.appliedModules.clear();
      this.appliedBytes = 0;
      this.appliedOutOfShape = 0;
    } else {
      this.collect = 0;
      this.collectBytes = 0;
      this.collectOutOfShape = 0;
    }
  }
}
