/**
 * Who held the seat, and when, as a test sees it: a watch of the key
 * `holder` of the bucket `mesh-provisioner_seat` records every change with the
 * time it was seen (Date.now() in the test process, the clock the Fleet's
 * exits are timed on). `uncovered` turns the record into the moments with no
 * holder: a hold runs from the put naming an instance until the next change
 * of the key, or that instance's exit if it comes first (a holder that dies
 * without releasing holds nothing, whatever the key still says).
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm } from "@nats-io/kv";
import { SEAT_BUCKET } from "mesh-provisioner-client/keys";

export interface SeatEvent {
  /** Date.now() when this process saw it. */
  readonly at: number;
  readonly op: string;
  readonly revision: number;
  /** The holder's instance id; undefined for a delete. */
  readonly instance: string | undefined;
}

export interface SeatHistory {
  readonly events: readonly SeatEvent[];
  stop(): void;
}

/** Watch the seat's key from now on (its current value first); the bucket must exist. */
export async function recordSeat(nc: NatsConnection): Promise<SeatHistory> {
  const kv = await new Kvm(nc).open(SEAT_BUCKET);
  const events: SeatEvent[] = [];
  const w = await kv.watch({ key: "holder" });
  void (async () => {
    for await (const e of w) {
      const instance = e.operation === "PUT" ? e.json<{ instance: string }>().instance : undefined;
      events.push({ at: Date.now(), op: e.operation, revision: e.revision, instance });
    }
  })().catch(() => undefined);
  return { events, stop: () => w.stop() };
}

export interface Gap {
  readonly from: number;
  readonly to: number;
  readonly ms: number;
}

/**
 * The stretches of [from, to] during which nobody held the seat, longest
 * first. `exitOf` gives an instance's exit time, if it has exited.
 */
export function uncovered(events: readonly SeatEvent[], from: number, to: number, exitOf: (instance: string) => number | undefined): Gap[] {
  const holds: { from: number; to: number }[] = [];
  events.forEach((e, i) => {
    if (e.instance === undefined) return;
    const next = events[i + 1]?.at ?? Number.POSITIVE_INFINITY;
    holds.push({ from: e.at, to: Math.min(next, exitOf(e.instance) ?? Number.POSITIVE_INFINITY) });
  });
  holds.sort((a, b) => a.from - b.from);
  const gaps: Gap[] = [];
  let covered = from;
  for (const h of holds) {
    if (h.to <= covered) continue;
    if (h.from > covered) gaps.push({ from: covered, to: Math.min(h.from, to), ms: Math.min(h.from, to) - covered });
    covered = Math.max(covered, h.to);
    if (covered >= to) break;
  }
  if (covered < to) gaps.push({ from: covered, to, ms: to - covered });
  return gaps.filter((g) => g.ms > 0).sort((a, b) => b.ms - a.ms);
}
