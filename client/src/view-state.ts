/**
 * A watch's view (pure): a snapshot taken through the verb, then the feed's
 * events applied in order, each only where it is newer than what the view
 * holds for its key. Events that arrive while a snapshot is being taken are
 * kept and applied once it is in, above the snapshot's lowest page revision,
 * so that nothing is lost between the snapshot and the feed and nothing is
 * applied twice.
 *
 * A view handed out shares the maps until the next change, which copies them
 * first (copy on write): a view, once handed out, never changes, and a watch
 * whose views nobody took copies nothing. The Go client's viewState does the
 * same, rule for rule.
 *
 * The view's `stale` is the last snapshot's. The feed's events do not clear
 * it: the seat's holder publishes them, and those published while the
 * answering projection heard nothing (a site cut off from its hub) never
 * reached the view either, so only a snapshot that is not stale clears it.
 */
import type { What } from "./keys/mod.js";
import type { AnyEntry, Answer, FeedEvent, OutOfShape, View } from "./protocol/messages.js";
import type { Staleness } from "./protocol/staleness.js";

/** An entry's key in its bucket: a registry entry's is its kind. */
export function keyOfEntry(what: What, e: AnyEntry): string {
  return what === "registry" ? (e as { kind: string }).kind : (e as { key: string }).key;
}

export class ViewState<W extends What = What> {
  private entries = new Map<string, AnyEntry>();
  private outOfShape = new Map<string, OutOfShape>();
  /** The revision each key held now was last written at. */
  private seen = new Map<string, number>();
  private revision = 0;
  private synced = false;
  /** The last snapshot's staleness. */
  private stale: Staleness | undefined;
  /** Events kept while a snapshot is taken; undefined when applying directly. */
  private pending: FeedEvent[] | undefined = [];
  /** The maps were handed out in a view: copy them before writing. */
  private shared = false;

  constructor(private readonly what: W = "needs" as W) {}

  /** A fresh snapshot is being taken: keep events until it is in. */
  beginSnapshot(): void {
    this.synced = false;
    // Already holding events for a snapshot that failed or was refused: keep them, the next one sorts them out.
    this.pending ??= [];
  }

  /**
   * The snapshot is in: `lowest` is the lowest revision any of its pages was
   * answered at (an out-of-shape key is credited with it: the verb does not
   * answer theirs). False, and nothing changed, when the snapshot is older
   * than the view: take another.
   */
  endSnapshot(snapshot: Answer, lowest: number): boolean {
    // A snapshot older than what the view already reflects would step it back: refuse it (take another).
    if (snapshot.revision < this.revision) return false;
    const entries = new Map<string, AnyEntry>();
    const outOfShape = new Map<string, OutOfShape>();
    const seen = new Map<string, number>();
    for (const e of snapshot.entries) {
      const key = keyOfEntry(this.what, e);
      entries.set(key, e);
      seen.set(key, e.revision);
    }
    for (const o of snapshot.outOfShape) {
      outOfShape.set(o.key, o);
      seen.set(o.key, lowest);
    }
    this.entries = entries;
    this.outOfShape = outOfShape;
    this.seen = seen;
    this.shared = false;
    this.revision = snapshot.revision;
    this.stale = snapshot.stale;
    const kept = this.pending ?? [];
    this.pending = undefined;
    for (const ev of kept) if (ev.revision > lowest) this.applyNow(ev);
    this.synced = true;
    return true;
  }

  /** Apply one event (it already belongs to what is watched). True when the view changed or was held for later. */
  apply(event: FeedEvent): boolean {
    if (this.pending !== undefined) {
      this.pending.push(event);
      return false;
    }
    return this.applyNow(event);
  }

  /** The highest revision of the bucket the view reflects. */
  get atRevision(): number {
    return this.revision;
  }

  get isSynced(): boolean {
    return this.synced;
  }

  /** The last snapshot's staleness (undefined: it was not stale). */
  get staleness(): Staleness | undefined {
    return this.stale;
  }

  /** The view now; it never changes (the state copies its maps before its next change). */
  view(): View<W> {
    this.shared = true;
    return {
      revision: this.revision,
      synced: this.synced,
      entries: this.entries as unknown as View<W>["entries"],
      outOfShape: this.outOfShape,
      ...(this.stale === undefined ? {} : { stale: this.stale }),
    };
  }

  private applyNow(ev: FeedEvent): boolean {
    if (ev.revision > this.revision) this.revision = ev.revision;
    const at = this.seen.get(ev.key);
    if (at !== undefined && at >= ev.revision) return false;
    // One publisher sends events in order, so a deleted key needs no tombstone.
    if (ev.op === "delete") this.seen.delete(ev.key);
    else this.seen.set(ev.key, ev.revision);
    const held = this.entries.has(ev.key) || this.outOfShape.has(ev.key);
    const put = ev.op === "put" && (ev.entry !== undefined || ev.outOfShape !== undefined);
    if (!held && !put) return false;
    this.unshare();
    this.entries.delete(ev.key);
    this.outOfShape.delete(ev.key);
    if (ev.op === "put" && ev.entry !== undefined) this.entries.set(ev.key, ev.entry);
    else if (ev.op === "put" && ev.outOfShape !== undefined) this.outOfShape.set(ev.key, ev.outOfShape);
    return true;
  }

  /** Copy the maps a view was handed, before changing them. */
  private unshare(): void {
    if (!this.shared) return;
    this.entries = new Map(this.entries);
    this.outOfShape = new Map(this.outOfShape);
    this.shared = false;
  }
}
