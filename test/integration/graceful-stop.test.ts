/**
 * `serve`'s graceful stop on SIGTERM (src/stop.ts; docs/operations.md,
 * "Stopping and upgrading"), with real processes on a private nats-server and
 * the default seat ttl (10 s).
 *
 * The holder `a` receives a request that waits for a revision nobody has
 * written yet; a standby `b` joins; then `a` gets SIGTERM. While `a` stops,
 * its /readyz and /healthz are polled every few milliseconds and the seat's
 * key is watched. Only then is the awaited revision written: the stop cannot
 * have ended before it, so what it does meanwhile is seen.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import { STATS_SUBJECT, VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { statsOf, type StatsReply } from "mesh-provisioner-client/protocol/stats.js";
import { startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { connectTo } from "../helpers/stack.js";
import { Fleet, type LogLine } from "../helpers/processes.js";
import { spawnServed, type Served } from "../helpers/served.js";
import { httpGet } from "../helpers/http-get.js";
import { until } from "../helpers/verb-pages.js";
import { recordSeat, type SeatHistory } from "../helpers/seat-history.js";
import { stopBound } from "../../src/stop.js";
import { parseDuration } from "../../src/duration.js";
import { SERVE_DEFAULTS } from "../../src/defaults.js";

const TTL_MS = parseDuration(SERVE_DEFAULTS.seatTtl);
/** `a`'s --max-wait: its request waits from before `b` starts until after the signal. */
const MAX_WAIT = "20s";
const BOUND_MS = stopBound(parseDuration(MAX_WAIT)).totalMs;
/** A graceful handover: a standby sees the release and takes the seat in a round trip or two. */
const HANDOVER_LIMIT_MS = 1000;

const holds = (l: LogLine): boolean => l.fields["component"] === "seat" && l.fields["isHolder"] === true;
const seatLine = (l: LogLine): boolean => l.fields["component"] === "seat" && typeof l.fields["isHolder"] === "boolean";

interface Sample {
  readonly sentAt: number;
  readonly path: string;
  readonly status: number | "error";
  readonly body: Record<string, unknown> | undefined;
}

/** Poll `paths` of `base` back to back (each on its own socket) until `stop()`. */
function poll(base: string, paths: readonly string[]): { samples: Sample[]; stop: () => Promise<void> } {
  const samples: Sample[] = [];
  let on = true;
  const loops = paths.map(async (path) => {
    while (on) {
      const sentAt = Date.now();
      try {
        const r = await httpGet(`${base}${path}`, {}, 1000);
        samples.push({ sentAt, path, status: r.status, body: JSON.parse(r.body) as Record<string, unknown> });
      } catch {
        samples.push({ sentAt, path, status: "error", body: undefined });
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  });
  return {
    samples,
    stop: async () => {
      on = false;
      await Promise.all(loops);
    },
  };
}

describe("serve's graceful stop on SIGTERM", { timeout: 60_000 }, () => {
  let server: RunningNatsServer;
  let nc: NatsConnection;
  let fleet: Fleet;
  let seat: SeatHistory | undefined;
  /** Stopped in after(), whatever happened. */
  const pollers = new Set<{ stop: () => Promise<void> }>();

  before(async () => {
    server = await startNatsServer();
    nc = await connectTo(server);
    fleet = new Fleet({ server: server.url });
  });
  after(async () => {
    await Promise.all([...pollers].map((p) => p.stop()));
    seat?.stop();
    await fleet?.killAll();
    await nc?.close();
    await server?.stop();
  });

  test("not ready at once, the seat taken by a standby at once, the request received answered, exit 0 within the bound", async () => {
    const a: Served = await spawnServed(fleet, { name: "a", args: ["--max-wait", MAX_WAIT] });
    await a.proc.waitForLine(holds, 15_000, "a holds the seat");
    seat = await recordSeat(nc);
    const jsm = await jetstreamManager(nc);
    const needs = await new Kvm(nc).open(BUCKETS.needs);
    const rev = (await jsm.streams.info(streamName(BUCKETS.needs))).state.last_seq;

    // A request only `a` can receive (it is alone in the queue group), waiting for a revision not yet written.
    const asked = nc.request(VERB_SUBJECT, JSON.stringify({ what: "needs", minRevision: rev + 1 }), { timeout: 30_000 });
    await until(
      async () => {
        const replies: StatsReply[] = [];
        for await (const m of await nc.requestMany(STATS_SUBJECT, undefined, { maxWait: 500 })) replies.push(m.json<StatsReply>());
        return replies.some((r) => (statsOf(r)?.requests ?? 0) >= 1) ? true : undefined;
      },
      5000,
      "a has received the request",
    );
    const b = await spawnServed(fleet, { name: "b" });
    await b.proc.waitForLine(seatLine, 15_000, "b sees the seat");
    await b.proc.waitForLine((l) => l.msg === "the verb is answering", 15_000, "b answers the verb");

    const polled = poll(a.base, ["/readyz", "/healthz"]);
    pollers.add(polled);
    await until(() => (polled.samples.some((s) => s.path === "/readyz" && s.status === 200) ? true : undefined), 5000, "a is ready");
    const t0 = Date.now();
    a.proc.signal("SIGTERM");

    const taken = await until(() => seat!.events.find((e) => e.at >= t0 && e.instance === b.proc.instance), HANDOVER_LIMIT_MS + 4000, "b takes the seat");
    assert.equal(a.proc.exit, undefined, "a is still stopping: the request it received waits");
    // `a` cannot finish its stop before the put below answers its request: its HTTP server must still be up.
    const healthzAfterHandover = await httpGet(`${a.base}/healthz`, {}, 2000);
    await needs.put("n1.web.config.port", "8080");
    const reply = await asked;
    const repliedAt = Date.now();
    const exit = await a.proc.exited;
    await polled.stop();

    const stopMs = exit.at - t0;
    const handoverMs = taken.at - t0;
    const during = polled.samples.filter((s) => s.sentAt >= t0 && s.status !== "error");
    const readyz = during.filter((s) => s.path === "/readyz");
    const firstStopping = readyz.find((s) => s.status === 503 && s.body?.["stopping"] === true);
    console.log(
      `MEASURED graceful_stop handover_ms=${handoverMs} stop_ms=${stopMs} replied_after_signal_ms=${repliedAt - t0} ` +
        `readyz_503_after_ms=${firstStopping ? firstStopping.sentAt - t0 : "none"} readyz_samples=${readyz.length} bound_ms=${BOUND_MS} ttl_ms=${TTL_MS}`,
    );

    assert.equal(reply.headers?.get("Nats-Service-Error-Code") ?? "", "", `the request a received is answered: ${reply.string()}`);
    assert.ok(reply.json<{ revision: number }>().revision >= rev + 1, "at the revision it waited for");
    assert.ok(handoverMs < HANDOVER_LIMIT_MS, `the standby took the seat ${handoverMs} ms after the signal (ttl ${TTL_MS} ms)`);
    assert.ok(taken.at < repliedAt, "the seat was handed over while the verb still drained");
    assert.ok(
      seat.events.some((e) => e.at >= t0 && e.at <= taken.at && e.op === "DEL"),
      "a released the seat (a delete) before b took it",
    );
    assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, a.proc.tail());
    assert.ok(stopMs <= BOUND_MS, `stopped in ${stopMs} ms (bound ${BOUND_MS} ms)`);
    assert.ok(firstStopping !== undefined, `/readyz answered 503 "stopping" during the stop: ${JSON.stringify(readyz.slice(0, 5))}`);
    assert.deepEqual(
      readyz.filter((s) => s.sentAt >= firstStopping.sentAt && s.status !== 503).map((s) => s.status),
      [],
      "never ready again once stopping",
    );
    assert.equal(healthzAfterHandover.status, 200, "/healthz still answers 200 after the seat was handed over");
    const msgs = a.proc.lines.map((l) => l.msg);
    assert.ok(msgs.indexOf("released the seat for a standby to take") < msgs.indexOf("stopped cleanly"), a.proc.tail());
  });
});
