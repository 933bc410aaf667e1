/**
 * The kinds a store's entries name (needs), as small ids kept per slot (pure):
 * an id is given the first time a kind is seen and never reused, so a slot's
 * id stays valid while the kind has no entry; only kinds some entry names now
 * are listed.
 */
export class KindCounts {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly counts: number[] = [];

  /** One more entry names `kind`: its id. */
  add(kind: string): number {
    const id = this.idFor(kind);
    this.addId(id);
    return id;
  }

  /** The id of `kind`, given now if it has none (counted by `addId`). */
  idFor(kind: string): number {
    let id = this.ids.get(kind) ?? -1;
    if (id < 0) {
      id = this.names.length;
      this.ids.set(kind, id);
      this.names.push(kind);
      this.counts.push(0);
    }
    return id;
  }

  /** One more entry names the kind of `id`. */
  addId(id: number): void {
    this.counts[id] = (this.counts[id] as number) + 1;
  }

  /** How many ids were given: every id is below it. */
  get idCount(): number {
    return this.names.length;
  }

  /** One entry fewer names the kind of `id`. */
  remove(id: number): void {
    this.counts[id] = (this.counts[id] as number) - 1;
  }

  /** The id of `kind` (-1: it was never named). */
  idOf(kind: string): number {
    return this.ids.get(kind) ?? -1;
  }

  nameOf(id: number): string | undefined {
    return this.names[id];
  }

  /** The kinds some entry names. */
  *named(): IterableIterator<string> {
    for (let id = 0; id < this.names.length; id++) if ((this.counts[id] as number) > 0) yield this.names[id] as string;
  }

  /** The ids of the kinds some entry names and `keep` keeps: no generator, no string array, per answer. */
  idsWhere(keep: (kind: string) => boolean): number[] {
    const out: number[] = [];
    for (let id = 0; id < this.names.length; id++) if ((this.counts[id] as number) > 0 && keep(this.names[id] as string)) out.push(id);
    return out;
  }
}
