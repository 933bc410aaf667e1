/**
 * The mesh overview (pure): counts per node, kept as the node buckets' stores
 * apply changes (it observes them; see StoreObserver), so that the dashboard
 * reads totals and a page of nodes without scanning a single entry.
 *
 * Per node it keeps the needs per module and per kind, the modules applied,
 * the collect items, the keys out of shape whose node token is readable, and
 * its last change. What depends on the registry (a need is unanswered when
 * the registry has no entry for its kind) is computed when read, from the
 * per-kind counts and the registry's kinds at that moment, so a registry
 * change needs no recount.
 */
import type { OutOfShapeKey } from "../projections/store/view.js";
import { FloodWatch, type FloodChange, type FloodLimits, type Flooding } from "./flood.js";
import { BUCKET_IDS, NodeCounts } from "./node-counts.js";
import type { ProjectionObserver } from "../projections/projection.js";

export type NodeBucket = "needs" | "applied" | "collect";

/** One node's line in the node list. */
export interface NodeRow {
  readonly node: string;
  /** Modules named by its needs or its applied keys. */
  readonly modules: number;
  readonly needs: number;
  /** Needs whose kind the registry does not answer. */
  readonly unanswered: number;
  /** Modules with needs and nothing applied. */
  readonly notApplied: number;
  readonly applied: number;
  readonly collect: number;
  readonly outOfShape: number;
  /** Keys across the node buckets, out-of-shape ones included, and the bytes of its entries as held. */
  readonly keys: number;
  readonly bytes: number;
  /** Over the flood limits (see FloodWatch). */
  readonly flooding: boolean;
  /** Its last change seen by this service: the bucket, the revision, and when (ms since the epoch; null for the first sync's). */
  readonly last: { readonly what: NodeBucket; readonly revision: number; readonly at: number | null } | null;
  /** Something an operator should look at: an unanswered need, a module not applied, a key out of shape, a flood. */
  readonly problems: boolean;
}

export interface OverviewTotals {
  readonly nodes: number;
  readonly nodesWithProblems: number;
  readonly modules: number;
  readonly needs: number;
  readonly unanswered: number;
  readonly notApplied: number;
  readonly applied: number;
  readonly collect: number;
  readonly outOfShape: Readonly<Record<NodeBucket, number>>;
  /** Keys out of shape with no readable node token: in the totals, on no node. */
  readonly outOfShapeWithoutNode: number;
  /** Nodes over the flood limits, and the first of them (the most keys first). */
  readonly nodesFlooding: number;
  readonly flooding: readonly Flooding[];
}

export interface NodeQuery {
  /** Keep nodes whose name contains this (case-insensitive). */
  readonly match?: string;
  /** Keep only nodes with problems. */
  readonly problems?: boolean;
  /** Keep only nodes with a need of this kind (their rows then carry `ofKind`). */
  readonly kind?: string;
  /** Keep only nodes with a need no domain answers. */
  readonly unanswered?: boolean;
  readonly offset?: number;
  readonly limit?: number;
}

export interface NodePage {
  /** Nodes in the mesh. */
  readonly total: number;
  /** Nodes the query keeps. */
  readonly matched: number;
  readonly offset: number;
  readonly rows: readonly (NodeRow & { readonly ofKind?: number })[];
}

/** Needs of one kind across the mesh. */
export interface KindCount {
  readonly kind: string;
  readonly needs: number;
}

/** Items of one collection across the mesh. */
export interface CollectionCount {
  readonly collection: string;
  readonly items: number;
}

export const MAX_NODE_PAGE = 500;
const MAX_INTERNED = 65_536;

function bump<K>(m: Map<K, number>, k: K, by: number): void {
  const n = (m.get(k) ?? 0) + by;
  if (n === 0) m.delete(k);
  else m.set(k, n);
}

export class MeshOverview {
  private readonly nodes = new Map<string, NodeCounts>();
  /** One string per module or kind name, shared by every node that has it (10,000 nodes name the same few modules). */
  private readonly names = new Map<string, string>();
  private readonly kindTotals = new Map<string, number>();
  /** Collect items per collection name: as many names as the collect store's own collection index holds. */
  private readonly collectionTotals = new Map<string, number>();
  private readonly oosTotals: Record<NodeBucket, number> = { needs: 0, applied: 0, collect: 0 };
  private readonly oosWithoutNodeBy = [0, 0, 0];
  private sorted: string[] | undefined;
  private synced = false;
  /** Bumped on every change: readers compare it to know the counts moved. */
  version = 0;

  private readonly floods: FloodWatch;

  /**
   * `isAnswered`: whether the registry answers a kind now; `now`: the clock
   * (only changes after `markSynced` get a time); `flood`: the limits past
   * which a node is flooding, and who is told when one crosses them.
   */
  constructor(
    private readonly isAnswered: (kind: string) => boolean,
    private readonly now: () => number,
    flood: { limits: FloodLimits; onChange?: (change: FloodChange) => void },
  ) {
    this.floods = new FloodWatch(flood.limits, flood.onChange);
  }

  /** The nodes over the flood limits now, the most keys first. */
  flooding(max = 20): Flooding[] {
    return this.floods.list(max);
  }

  /** The first sync is over: changes from now on carry the time they were applied. */
  markSynced(): void {
    this.synced = true;
  }

  /** The observer to give the bucket's projection. */
  observerFor(what: NodeBucket): ProjectionObserver {
    return {
      clear: () => this.clear(what),
      entryIn: (key, fields, revision, bytes, previousBytes) => this.entry(what, fields, revision, previousBytes === 0 ? 1 : 0, bytes - previousBytes),
      entriesIn: (fields, count, revision, bytes) => this.entry(what, fields, revision, count, bytes),
      entryOut: (key, fields, revision, bytes) => this.entry(what, fields, revision, -1, -bytes),
      outOfShapeIn: (rec, isNew) => this.outOfShape(what, rec, rec.revision, isNew ? 1 : 0),
      outOfShapeOut: (rec, revision) => this.outOfShape(what, rec, revision, -1),
    };
  }

  /** Forget one bucket's part (its store is about to be replayed whole, after a rebuild). */
  clear(what: NodeBucket): void {
    for (const [name, n] of this.nodes) {
      n.clear(what);
      this.floods.update(name, n.keys, n.bytes, n.lastAt);
      this.dropIfEmpty(name, n);
    }
    if (what === "needs") this.kindTotals.clear();
    if (what === "collect") this.collectionTotals.clear();
    this.oosTotals[what] = 0;
    this.oosWithoutNodeBy[BUCKET_IDS[what]] = 0;
    this.version++;
  }

  totals(): OverviewTotals {
    let needs = 0;
    let unanswered = 0;
    for (const [kind, n] of this.kindTotals) {
      needs += n;
      if (!this.isAnswered(kind)) unanswered += n;
    }
    let modules = 0;
    let notApplied = 0;
    let applied = 0;
    let collect = 0;
    let withProblems = 0;
    for (const [name, n] of this.nodes) {
      const r = this.counts(n);
      modules += r.modules;
      notApplied += r.notApplied;
      applied += r.applied;
      collect += n.collect;
      if (r.problems || this.floods.isFlooding(name)) withProblems++;
    }
    return {
      nodes: this.nodes.size,
      nodesWithProblems: withProblems,
      modules,
      needs,
      unanswered,
      notApplied,
      applied,
      collect,
      outOfShape: { ...this.oosTotals },
      outOfShapeWithoutNode: this.oosWithoutNodeBy.reduce((a, b) => a + b, 0),
      nodesFlooding: this.floods.count,
      flooding: this.floods.list(),
    };
  }

  /** One node's row, or undefined when the mesh has no key of it. */
  row(node: string): NodeRow | undefined {
    const n = this.nodes.get(node);
    if (n === undefined) return undefined;
    const flooding = this.floods.isFlooding(node);
    const c = this.counts(n);
    return {
      node,
      ...c,
      problems: c.problems || flooding,
      collect: n.collect,
      outOfShape: n.outOfShapeCount,
      keys: n.keys,
      bytes: n.bytes,
      flooding,
      last: n.last,
    };
  }

  /** A page of the node list, sorted by name, filtered on the server. */
  page(q: NodeQuery = {}): NodePage {
    const names = (this.sorted ??= [...this.nodes.keys()].sort());
    const match = q.match?.toLowerCase();
    const offset = Math.max(0, Math.floor(q.offset ?? 0));
    const limit = Math.min(MAX_NODE_PAGE, Math.max(1, Math.floor(q.limit ?? 50)));
    const kind = q.kind;
    // A filter on a count reads each named node's row; without one, only the rows shown are built.
    const byRow = q.problems === true || q.unanswered === true;
    const rows: (NodeRow & { ofKind?: number })[] = [];
    let matched = 0;
    for (const name of names) {
      if (match !== undefined && match !== "" && !name.toLowerCase().includes(match)) continue;
      const ofKind = kind === undefined ? 0 : (this.nodes.get(name) as NodeCounts).needsByKind.get(kind);
      if (kind !== undefined && ofKind === 0) continue;
      if (byRow || (matched >= offset && rows.length < limit)) {
        const row = this.row(name) as NodeRow;
        if (q.problems === true && !row.problems) continue;
        if (q.unanswered === true && row.unanswered === 0) continue;
        if (matched >= offset && rows.length < limit) rows.push(kind === undefined ? row : { ...row, ofKind });
      }
      matched++;
    }
    return { total: this.nodes.size, matched, offset, rows };
  }

  /** Needs per kind across the mesh, by kind name (as many kinds as the needs name). */
  kinds(): KindCount[] {
    return [...this.kindTotals].map(([kind, needs]) => ({ kind, needs })).sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
  }

  /** Needs of one kind across the mesh. */
  needsOfKind(kind: string): number {
    return this.kindTotals.get(kind) ?? 0;
  }

  /** Items per collection across the mesh, by collection name. */
  collections(): CollectionCount[] {
    return [...this.collectionTotals]
      .map(([collection, items]) => ({ collection, items }))
      .sort((a, b) => (a.collection < b.collection ? -1 : a.collection > b.collection ? 1 : 0));
  }

  /** Items of one collection across the mesh. */
  itemsOf(collection: string): number {
    return this.collectionTotals.get(collection) ?? 0;
  }

  private counts(n: NodeCounts): { modules: number; needs: number; unanswered: number; notApplied: number; applied: number; problems: boolean } {
    let unanswered = 0;
    n.needsByKind.forEach((kind, c) => {
      if (!this.isAnswered(kind)) unanswered += c;
    });
    let notApplied = 0;
    n.needsByModule.forEach((m) => {
      if (!n.appliedModules.has(m)) notApplied++;
    });
    let modules = n.needsByModule.size;
    n.appliedModules.forEach((m) => {
      if (!n.needsByModule.has(m)) modules++;
    });
    return {
      modules,
      needs: n.needs,
      unanswered,
      notApplied,
      applied: n.appliedModules.size,
      problems: unanswered > 0 || notApplied > 0 || n.outOfShapeCount > 0,
    };
  }

  /** `delta` entries came (a negative one: went) or, 0, one was replaced; `bytes` is what their size changed by. */
  private entry(what: NodeBucket, fields: Readonly<Record<string, string>>, revision: number, delta: number, bytes: number): void {
    const name = fields["node"];
    if (name === undefined) return;
    const n = delta >= 0 ? this.nodeFor(name) : this.nodes.get(name);
    if (n === undefined) return;
    n.addBytes(what, bytes);
    if (delta !== 0) {
      const module = this.intern(fields["module"] as string);
      if (what === "needs") {
        const kind = this.intern(fields["kind"] as string);
        n.needs += delta;
        n.needsByModule.add(module, delta);
        n.needsByKind.add(kind, delta);
        bump(this.kindTotals, kind, delta);
      } else if (what === "applied") {
        // One applied key per module (<node>.<module>): a count of 1 while it is there, as a set.
        n.appliedModules.add(module, (delta > 0 ? 1 : 0) - n.appliedModules.get(module));
      } else {
        n.collect += delta;
        bump(this.collectionTotals, this.intern(fields["collection"] as string), delta);
      }
    }
    this.touched(name, n, what, revision);
  }

  private outOfShape(what: NodeBucket, rec: OutOfShapeKey, revision: number, delta: -1 | 0 | 1): void {
    this.oosTotals[what] += delta;
    const name = rec.readable["node"];
    if (name === undefined) {
      const i = BUCKET_IDS[what];
      this.oosWithoutNodeBy[i] = (this.oosWithoutNodeBy[i] as number) + delta;
      this.version++;
      return;
    }
    const n = delta >= 0 ? this.nodeFor(name) : this.nodes.get(name);
    if (n === undefined) return;
    n.addOutOfShape(what, delta);
    this.touched(name, n, what, revision);
  }

  private intern(name: string): string {
    const known = this.names.get(name);
    if (known !== undefined) return known;
    // A flood of made-up names must not grow this for ever: start again (names already held stay shared).
    if (this.names.size >= MAX_INTERNED) this.names.clear();
    this.names.set(name, name);
    return name;
  }

  private nodeFor(name: string): NodeCounts {
    let n = this.nodes.get(name);
    if (n === undefined) {
      n = new NodeCounts();
      this.nodes.set(name, n);
      this.sorted = undefined;
    }
    return n;
  }

  private touched(name: string, n: NodeCounts, what: NodeBucket, revision: number): void {
    n.lastBucket = BUCKET_IDS[what];
    n.lastRevision = revision;
    n.lastAt = this.synced ? this.now() : 0;
    this.floods.update(name, n.keys, n.bytes, n.lastAt);
    this.dropIfEmpty(name, n);
    this.version++;
  }

  private dropIfEmpty(name: string, n: NodeCounts): void {
    if (!n.empty) return;
    this.nodes.delete(name);
    this.sorted = undefined;
  }
}
