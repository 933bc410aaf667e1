/**
 * The seat's state machine (pure): who holds the seat as this instance sees
 * it, and what it may do. Times are this instance's monotonic clock in
 * milliseconds, never wall clocks compared between machines.
 *
 * - A holder may write only while its last successful renewal is recent: it
 *   stops writing once `writeFraction` of the ttl has passed since the
 *   renewal was *sent*, so it stops before any standby (which waits a whole
 *   ttl from when it *saw* that renewal) can take the seat.
 * - A standby takes the seat when the key is absent, or when it has seen no
 *   change of the key's revision for a whole ttl.
 */
import type { HolderValue } from "mesh-provisioner-client/protocol/stats.js";

export type Role = "standby" | "holder";

export interface SeatState {
  readonly role: Role;
  /** Revision of the `holder` key as last seen (0 when absent or deleted). */
  readonly revision: number;
  /** When that revision was first seen. */
  readonly seenAt: number;
  /** Holder only: when the last successful renewal (or take) was sent. */
  readonly renewedAt: number;
  /** The holder's value as last seen, if any. */
  readonly holder?: HolderValue;
}

export type { HolderValue };

export interface SeatTiming {
  readonly ttlMs: number;
  /** Fraction of the ttl after the last renewal at which a holder stops writing. */
  readonly writeFraction: number;
  /** Renewals per ttl. */
  readonly renewalsPerTtl: number;
}

export const DEFAULT_TIMING = (ttlMs: number): SeatTiming => ({ ttlMs, writeFraction: 0.6, renewalsPerTtl: 4 });

export const initialState = (now: number): SeatState => ({ role: "standby", revision: 0, seenAt: now, renewedAt: -Infinity });

/** The key changed (a put, or a delete when `revision` names a delete marker and `holder` is undefined). */
export function observed(s: SeatState, revision: number, holder: HolderValue | undefined, now: number, me: string): SeatState {
  if (revision <= s.revision && revision !== 0) return s;
  const role: Role = s.role === "holder" && holder?.instance !== me ? "standby" : s.role;
  return { ...s, role, revision: holder === undefined ? 0 : revision, seenAt: now, holder };
}

/** This instance took or renewed the seat with a write sent at `sentAt` that landed at `revision`. */
export function won(s: SeatState, revision: number, holder: HolderValue, sentAt: number, now: number): SeatState {
  return { role: "holder", revision, seenAt: Math.max(s.seenAt, now), renewedAt: sentAt, holder };
}

/**
 * A renewal sent at `sentAt` landed at `revision`. It continues the hold only
 * when the write window has stayed open since the previous renewal: a hold is
 * one unbroken term (the feed publishes every change within it, and nothing
 * while the window is closed). A renewal that lands later leaves this
 * instance a standby that sees itself named at `revision`; it takes the seat
 * anew, with a new `since`, when a standby may.
 */
export function renewed(s: SeatState, revision: number, sentAt: number, now: number, t: SeatTiming): SeatState {
  if (mayWrite(s, now, t) && s.holder !== undefined) return won(s, revision, s.holder, sentAt, now);
  return { role: "standby", revision, seenAt: now, renewedAt: -Infinity, ...(s.holder ? { holder: s.holder } : {}) };
}

/** A renewal or take failed: whatever we thought, we do not hold the seat now. */
export function lost(s: SeatState, now: number): SeatState {
  return s.role === "holder" ? { ...s, role: "standby", seenAt: now, renewedAt: -Infinity } : s;
}

export function mayWrite(s: SeatState, now: number, t: SeatTiming): boolean {
  return s.role === "holder" && now - s.renewedAt < t.ttlMs * t.writeFraction;
}

/** When a standby may try to take the seat (now or later), given what it has seen. */
export function takeAt(s: SeatState, t: SeatTiming): number {
  return s.revision === 0 ? s.seenAt : s.seenAt + t.ttlMs;
}

/**
 * Since when, on this instance's clock, no holder may write as far as this
 * instance sees the key; undefined while one may. A holder renews several
 * times per write window, so a holder whose key has not moved for a whole
 * window has stopped writing (it stops once the window since its last
 * renewal closes): the seat is vacant from then until someone takes it. An
 * absent key is vacant from when it was seen absent.
 */
export function vacantSince(s: SeatState, now: number, t: SeatTiming): number | undefined {
  const window = t.ttlMs * t.writeFraction;
  if (s.role === "holder") return mayWrite(s, now, t) ? undefined : s.renewedAt + window;
  if (s.holder === undefined) return s.seenAt;
  const closed = s.seenAt + window;
  return now < closed ? undefined : closed;
}

export function renewEvery(t: SeatTiming): number {
  return Math.max(50, Math.floor(t.ttlMs / t.renewalsPerTtl));
}
