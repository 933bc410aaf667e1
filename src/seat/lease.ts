/**
 * The seat as a lease in the bucket `mesh-provisioner_seat`, key `holder`
 * (I/O). Taken by create-if-absent or, after a whole ttl without a renewal, by
 * a compare-and-set on the revision a standby saw, so only one standby can win;
 * renewed by compare-and-set several times per ttl; released by a
 * compare-and-set delete so a standby takes over at once. The decisions are
 * in ./state.ts; this file only times them and talks to the bucket.
 *
 * An instance that does not campaign (`serve --no-seat`, an instance at a
 * site) only watches the key: it knows the holder, and never writes the key.
 */
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { BehaviorSubject } from "rxjs";
import type { KV, KvWatchEntry } from "@nats-io/kv";
import type { Logger } from "../log.js";
import {
  DEFAULT_TIMING,
  initialState,
  lost,
  mayWrite,
  observed,
  renewEvery,
  renewed,
  takeAt,
  won,
  type HolderValue,
  type SeatState,
  type SeatTiming,
  vacantSince,
} from "./state.js";

export const SEAT_KEY = "holder";

export interface SeatOptions {
  readonly kv: KV;
  readonly ttlMs: number;
  readonly log: Logger;
  /** Monotonic milliseconds; performance.now() unless a test passes its own. */
  readonly clock?: () => number;
  readonly instance?: string;
  /** False: never take the seat, only watch who holds it (`serve --no-seat`). True when absent. */
  readonly campaign?: boolean;
}

/** What this instance saw of the seat since it started (read by /metrics). */
export interface SeatTally {
  /** Times the holder changed to an instance other than the last holder seen (this one included). */
  handovers: number;
  /** Times this instance took the seat. */
  acquisitions: number;
}

export interface SeatView {
  readonly isHolder: boolean;
  readonly holder?: HolderValue;
}

const encode = (v: HolderValue): Uint8Array => new TextEncoder().encode(JSON.stringify(v));

function decodeHolder(e: { operation: string; value: Uint8Array }): HolderValue | undefined {
  if (e.operation !== "PUT") return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(e.value)) as HolderValue;
  } catch {
    return { instance: "(unreadable)", host: "", pid: 0, since: "" };
  }
}

export class Seat {
  readonly instance: string;
  readonly timing: SeatTiming;
  /** The holder as this instance sees it, and whether it is us; emits on every change of holder. */
  readonly view$ = new BehaviorSubject<SeatView>({ isHolder: false });
  private state: SeatState;
  private timer: NodeJS.Timeout | undefined;
  /** Fires when the holder's write window ends without a renewal: the hold is given up then, not later. */
  private windowTimer: NodeJS.Timeout | undefined;
  private watch: (AsyncIterable<KvWatchEntry> & { stop(): void }) | undefined;
  private busy = false;
  private stopped = false;
  private readonly counts: SeatTally = { handovers: 0, acquisitions: 0 };
  /** The last holder seen, and whether the key has been read once (the holder found at the start is no handover). */
  private lastHolder: string | undefined;
  private looked = false;
  private readonly clock: () => number;
  private readonly log: Logger;

  constructor(private readonly opts: SeatOptions) {
    this.clock = opts.clock ?? (() => performance.now());
    this.instance = opts.instance ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.timing = DEFAULT_TIMING(opts.ttlMs);
    this.state = initialState(this.clock());
    this.log = opts.log.child({ component: "seat", instance: this.instance });
  }

  /** Holds the seat and may still act on it (the write window since the last renewal is open). */
  get isHolder(): boolean {
    return this.state.role === "holder" && this.mayWrite();
  }

  get holder(): HolderValue | undefined {
    return this.state.holder;
  }

  /** A copy of what this instance saw of the seat: handovers and its own takes. */
  get tally(): Readonly<SeatTally> {
    return { ...this.counts };
  }

  /** Milliseconds since the seat last had a holder that may write, as this instance sees the key; 0 while one may (see vacantSince). */
  get vacantMs(): number {
    const now = this.clock();
    const since = vacantSince(this.state, now, this.timing);
    return since === undefined ? 0 : Math.max(0, now - since);
  }

  /** May this instance write now? False as soon as its hold is in doubt. */
  mayWrite(): boolean {
    return mayWrite(this.state, this.clock(), this.timing);
  }

  async start(): Promise<void> {
    const { kv } = this.opts;
    const e = await kv.get(SEAT_KEY).catch(() => null);
    if (e) this.apply(observed(this.state, e.revision, decodeHolder(e), this.clock(), this.instance));
    this.looked = true;
    this.watch = (await kv.watch({ key: SEAT_KEY })) as AsyncIterable<KvWatchEntry> & { stop(): void };
    void this.follow(this.watch);
    await this.tick();
  }

  /** Stop renewing and watching without releasing: a standby takes the seat after the lease time. */
  abandon(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.windowTimer);
    this.watch?.stop();
  }

  /** Stop renewing; as holder, release the seat (compare-and-set delete) so a standby takes over at once. */
  async release(): Promise<void> {
    this.abandon();
    if (this.state.role !== "holder") return;
    const rev = this.state.revision;
    this.apply(lost(this.state, this.clock()));
    try {
      await this.opts.kv.delete(SEAT_KEY, { previousSeq: rev });
      this.log.info({ revision: rev }, "released the seat for a standby to take");
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, "could not release the seat; a standby takes it after the lease time");
    }
  }

  private async follow(watch: AsyncIterable<KvWatchEntry>): Promise<void> {
    try {
      for await (const e of watch) {
        if (this.stopped) break;
        this.apply(observed(this.state, e.operation === "PUT" ? e.revision : 0, decodeHolder(e), this.clock(), this.instance));
        this.schedule();
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, "the seat's watch ended; the lease timers still decide");
    }
  }

  /** Whether this instance ever takes the seat. */
  get campaigns(): boolean {
    return this.opts.campaign !== false;
  }

  private schedule(): void {
    if (this.stopped || !this.campaigns) return;
    clearTimeout(this.timer);
    const wait = this.state.role === "holder" ? renewEvery(this.timing) : Math.max(0, takeAt(this.state, this.timing) - this.clock());
    this.timer = setTimeout(() => void this.tick(), wait);
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.busy || !this.campaigns) return;
    this.busy = true;
    try {
      if (this.state.role === "holder") await this.renew();
      else if (this.clock() >= takeAt(this.state, this.timing)) await this.take();
    } finally {
      this.busy = false;
      this.schedule();
    }
  }

  private async renew(): Promise<void> {
    const sentAt = this.clock();
    const value = this.state.holder as HolderValue;
    // A renewal that cannot land within the write window is worthless: bound its wait by the window.
    const windowLeft = this.state.renewedAt + this.timing.ttlMs * this.timing.writeFraction - sentAt;
    try {
      const rev = await this.opts.kv.update(SEAT_KEY, encode(value), this.state.revision, Math.max(100, windowLeft));
      this.apply(renewed(this.state, rev, sentAt, this.clock(), this.timing));
      if (this.state.role !== "holder") {
        this.log.warn({ revision: rev }, "lost the seat: its renewal landed after the write window closed; taking it anew after the lease time");
      }
    } catch (err) {
      this.apply(lost(this.state, this.clock()));
      this.log.warn({ err: (err as Error).message }, "lost the seat: a renewal failed; registry writes stopped");
      await this.refresh();
    }
  }

  private async take(): Promise<void> {
    const { kv } = this.opts;
    const sentAt = this.clock();
    const value: HolderValue = { instance: this.instance, host: hostname(), pid: process.pid, since: new Date().toISOString() };
    const expected = this.state.revision;
    try {
      const rev = expected === 0 ? await kv.create(SEAT_KEY, encode(value)) : await kv.update(SEAT_KEY, encode(value), expected);
      // The seat's bucket holds one key, so a take that won cleanly lands right after what it expected, and the key
      // still holds it. nats-server 2.9 can let two compare-and-sets on the same revision of a clustered stream both
      // succeed (nats-server#4320: the expected sequence is checked only before the Raft proposal): the later one lands
      // at expected + 2, and the earlier one finds the key moved on. Either way this instance did not win alone: it does
      // not hold the seat.
      const now = (await kv.get(SEAT_KEY).catch(() => null))?.revision;
      if ((expected !== 0 && rev !== expected + 1) || (now !== undefined && now !== rev)) {
        this.log.warn({ expected, landedAt: rev, keyAt: now ?? null }, "a take of the seat raced another and is not counted as won; looking again");
        await this.refresh();
        return;
      }
      this.apply(won(this.state, rev, value, sentAt, this.clock()));
    } catch {
      // Someone else was quicker, or our view was stale: look again.
      await this.refresh();
    }
  }

  private async refresh(): Promise<void> {
    const e = await this.opts.kv.get(SEAT_KEY).catch(() => null);
    if (e === null) return;
    const holder = decodeHolder(e);
    this.apply(observed(this.state, holder ? e.revision : 0, holder, this.clock(), this.instance));
  }

  /** The write window closed with no renewal (a hung or slow renewal, a paused process): give up the hold now. */
  private windowClosed(): void {
    if (this.state.role !== "holder" || this.mayWrite()) return;
    this.log.warn({ ttlMs: this.timing.ttlMs }, "lost the seat: no renewal landed within the write window; registry writes and the feed stopped");
    this.apply(lost(this.state, this.clock()));
    this.schedule();
  }

  private apply(next: SeatState): void {
    const before = this.state;
    this.state = next;
    if (next.role === "holder" && next.renewedAt !== before.renewedAt) {
      clearTimeout(this.windowTimer);
      const closesIn = next.renewedAt + this.timing.ttlMs * this.timing.writeFraction - this.clock();
      this.windowTimer = setTimeout(() => this.windowClosed(), Math.max(0, closesIn) + 1);
    }
    const isHolder = next.role === "holder";
    if (isHolder && before.role !== "holder") this.counts.acquisitions++;
    const named = next.holder?.instance;
    if (named !== undefined && named !== this.lastHolder) {
      if (this.looked) this.counts.handovers++;
      this.lastHolder = named;
    }
    const changed = before.role !== next.role || before.holder?.instance !== next.holder?.instance;
    // Our own take, seen by the watch before its acknowledgement: wait for the acknowledgement.
    const ownTakeInFlight = before.role !== "holder" && !isHolder && next.holder?.instance === this.instance;
    if (!changed || ownTakeInFlight) return;
    const message = isHolder
      ? "this instance holds the seat: it writes the registry"
      : before.role === "holder"
        ? "this instance no longer holds the seat: it stopped writing"
        : next.holder
          ? "the seat is held by another instance"
          : "the seat is free";
    this.log.info({ holder: next.holder ?? null, isHolder, revision: next.revision }, message);
    this.view$.next({ isHolder, holder: next.holder });
  }
}
