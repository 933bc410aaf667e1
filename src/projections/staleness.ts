/**
 * The staleness rule (pure): a projection's answers may be stale once it has
 * heard nothing from its bucket's stream for longer than `--stale-after`.
 * Heard is a message or an idle heartbeat of its watch's consumer, or a read
 * of the stream's state by the watch's stall check: each proves the stream
 * was reachable then. What it says is measured on this instance's own clock
 * (`silentMs`), so a reader on another host needs no agreement of clocks.
 */
import type { Staleness } from "mesh-provisioner-client/protocol/messages.js";

export type { Staleness };

/**
 * The staleness of a projection that last heard from its stream at
 * `heardAtMs` and holds `revision`, asked at `nowMs` (both Unix milliseconds
 * of one clock): undefined while it has heard within `staleAfterMs`. A clock
 * stepped back never gives a negative silence.
 */
export function staleness(heardAtMs: number, nowMs: number, staleAfterMs: number, revision: number): Staleness | undefined {
  const silentMs = Math.max(0, Math.floor(nowMs - heardAtMs));
  if (silentMs <= staleAfterMs) return undefined;
  return { since: new Date(heardAtMs).toISOString(), silentMs, revision };
}

/** The object as it is written into a reply: `,"stale":{…}` follows a reply's first field (bytes only, no parse). */
export function staleJson(s: Staleness): string {
  return `{"since":"${s.since}","silentMs":${s.silentMs},"revision":${s.revision}}`;
}
