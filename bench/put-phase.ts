/**
 * The put -> visible phase: the service and the bare watch+reply anchor,
 * each asked for every put right after its ack, in alternating rounds after
 * one unmeasured warm-up round each. With `traceGc` (the service started
 * with node's --trace-gc) the service's collections are counted in every
 * measured round, its own and the anchor's (it applies the same puts through
 * both), with the longest pause of each kind; the anchor runs with
 * --trace-gc too, and its own collections in the same rounds are the
 * baseline (a pause the machine itself causes, a stalled VM, shows on both).
 */
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { spawnAnchor, type Child } from "./children.js";
import { VISIBLE_SUBJECT } from "./common.js";
import { addGcLine, emptyGcWindow, type GcWindow } from "./gc-trace.js";
import { jsonBody, putToVisible, type PutVisible } from "./measure.js";

const WARM_UP_MS = 2000;

/** The service's collections during one measured round (its own, or the bare anchor's: it applies the same puts through both). */
export interface GcRound extends GcWindow {
  round: "service" | "bare";
  /** The bare watch+reply's own collections in the same round. */
  anchor: GcWindow;
}
const MAX_OUTSTANDING = 500;

export interface PutPhaseOptions {
  readonly nc: NatsConnection;
  readonly kv: KV;
  readonly serverUrl: string;
  /** The running service (its lines are read for --trace-gc). */
  readonly service: Child;
  readonly answerBytes: number;
  readonly rate: number;
  readonly roundMs: number;
  readonly rounds: number;
  readonly keys: number;
  readonly traceGc: boolean;
  readonly readyTimeoutMs: number;
  readonly log: (line: string) => void;
}

export async function putPhase(o: PutPhaseOptions): Promise<{ putVisible: { service: PutVisible[]; bare: PutVisible[] }; gcPerRound: GcRound[] }> {
  o.log(`put -> visible: ${o.rate} puts/s for ${o.roundMs} ms, ${o.rounds} round(s) each, alternating with the bare watch+reply`);
  const bare = spawnAnchor("bare-visible.js", [o.serverUrl, o.answerBytes], o.traceGc ? ["--trace-gc"] : []);
  await bare.result(o.readyTimeoutMs, "ready line");
  try {
    // Where the service's collections go: a fresh window for each measured round (both sides'), none during the warm-up.
    let window: GcWindow | undefined;
    let anchorWindow: GcWindow | undefined;
    bare.onAnyLine = (_stream, line) => addGcLine(anchorWindow, line);
    // What the service itself says during the phase (a resumed watch, a lost seat, …): printed, since a stall shows nowhere else.
    o.service.onAnyLine = (stream, line) => {
      const notable = !line.includes('"level":"info"') && !line.includes('"level":"debug"');
      if (stream === "stderr" && line.startsWith("{") && (notable || /resum|seat|caught up/.test(line))) o.log(`service said: ${line.slice(0, 400)}`);
      addGcLine(window, line);
    };
    const round = (who: "service" | "bare", durationMs: number): Promise<PutVisible> =>
      putToVisible(o.nc, o.kv, who === "service" ? VERB_SUBJECT : VISIBLE_SUBJECT, {
        rate: o.rate,
        durationMs,
        keys: o.keys,
        maxOutstanding: MAX_OUTSTANDING,
        bodyOf: who === "service" ? undefined : (_node, revision) => jsonBody({ minRevision: revision }),
      });

    // Warm-up, not counted: the anchor has just loaded the bucket (its heap is
    // still settling) and neither side has run its put path hot yet.
    for (const who of ["bare", "service"] as const) await round(who, Math.min(WARM_UP_MS, o.roundMs));

    const putVisible = { service: [] as PutVisible[], bare: [] as PutVisible[] };
    const gcPerRound: GcRound[] = [];
    for (let r = 0; r < o.rounds; r++) {
      for (const who of r % 2 === 0 ? (["bare", "service"] as const) : (["service", "bare"] as const)) {
        if (o.traceGc) {
          window = emptyGcWindow();
          anchorWindow = emptyGcWindow();
        }
        const res = await round(who, o.roundMs);
        putVisible[who].push(res);
        let gcNote = "";
        if (window !== undefined) {
          const gc = window;
          const anchor = anchorWindow ?? emptyGcWindow();
          window = anchorWindow = undefined;
          gcPerRound.push({ round: who, ...gc, anchor });
          gcNote = `; the service ran ${gc.markCompact} mark-compacts (longest ${gc.longestMarkCompactMs} ms), ${gc.scavenge} scavenges (longest ${gc.longestScavengeMs} ms); the anchor's longest pause ${anchor.longestMs} ms`;
        }
        o.log(
          `put -> visible, ${who}: ${res.visibleMs.length} answered, ${res.errors} errors, ${res.skipped} skipped, ${res.achievedPerSecond.toFixed(0)} puts/s${gcNote}`,
        );
      }
    }
    return { putVisible, gcPerRound };
  } finally {
    o.service.onAnyLine = undefined;
    await bare.stop();
  }
}
