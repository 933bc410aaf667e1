/**
 * The seat (docs/protocol.md, "The seat"; issue 3) with real processes: several
 * `mesh-provisioner serve` children against a private nats-server, each with
 * `--seat-ttl 2s --drift-delay 100ms --log-level debug`.
 *
 * Who holds the seat is read from the key `holder` of the bucket
 * `mesh-provisioner_seat` (a watch in this process records every change with
 * the time it was seen) and from the children's log lines. Who wrote the
 * registry is read from the stream `KV_mesh-provisioner_registry`: an ordered
 * consumer records every message as it lands (the bucket keeps one message a
 * key, so a later write would hide an earlier one), merged with a final scan
 * of seq 1..last_seq; each write carries the writer's instance in the header
 * WRITER_HEADER, the test's own tampering carries none.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager, type ConsumerMessages, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { connectTo } from "../helpers/stack.js";
import { startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { Fleet, type LogLine, type ServiceProcess } from "../helpers/processes.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { WRITER_HEADER } from "../../src/reconcile/apply.js";
import { conditionalRegistryWrites } from "../../src/reconcile/write-mode.js";
import { until as pollUntil } from "../helpers/verb-pages.js";
import { streamName } from "mesh-provisioner-client/keys";

const TTL_MS = 2000;
const ARGS = ["--seat-ttl", "2s", "--drift-delay", "100ms", "--log-level", "debug"] as const;
const SEAT_BUCKET = "mesh-provisioner_seat";
const REGISTRY_BUCKET = "mesh-provisioner_registry";
const REGISTRY_STREAM = streamName(REGISTRY_BUCKET);
const HOLDS = "this instance holds the seat: it writes the registry";
const KINDS_IN_TABLE = 13;
const START_MS = 15_000;

interface HolderValue {
  instance: string;
  host: string;
  pid: number;
  since: string;
}

interface SeatEvent {
  /** Date.now() when this process saw it. */
  readonly at: number;
  readonly op: string;
  readonly revision: number;
  readonly holder: HolderValue | undefined;
}

interface Written {
  readonly seq: number;
  readonly subject: string;
  /** The WRITER_HEADER, undefined for the test's own writes. */
  readonly writer: string | undefined;
  readonly op: string;
  /** Nats-Expected-Last-Subject-Sequence: the service's registry writes carry it on servers that offer it safely (src/reconcile/write-mode.ts). */
  readonly expected: string | undefined;
}

const EXPECTED_HEADER = "Nats-Expected-Last-Subject-Sequence";
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Wait on the clock itself, for the scenarios whose point is that time passes ("past the ttl"). */
async function sleepUntil(epochMs: number): Promise<void> {
  const left = epochMs - Date.now();
  if (left > 0) await sleep(left);
}

/** The shared bounded poll, with the description first as this file reads best. */
const until = <T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> => pollUntil(fn, ms, what);

const seatLine = (l: LogLine): boolean => l.fields["component"] === "seat" && typeof l.fields["isHolder"] === "boolean";
const holdsLine = (l: LogLine): boolean => seatLine(l) && l.msg === HOLDS && l.fields["isHolder"] === true;
const standbyLine = (l: LogLine): boolean => seatLine(l) && l.fields["isHolder"] === false;
const syncedLine = (l: LogLine): boolean => l.msg.startsWith("all projections synced");

/** The last seat line of a process: what it claims now. */
function claim(p: ServiceProcess): { isHolder: boolean; holder?: string } | undefined {
  const l = [...p.lines].reverse().find(seatLine);
  if (!l) return undefined;
  const h = l.fields["holder"] as HolderValue | null | undefined;
  return { isHolder: l.fields["isHolder"] === true, holder: h?.instance };
}

/** A private server, a client connection, the fleet of children and the recorders of this test. */
class Harness {
  readonly seatEvents: SeatEvent[] = [];
  private readonly recorded = new Map<number, Written>();
  private stopWatch: (() => void) | undefined;
  private consumer: ConsumerMessages | undefined;
  seat!: KV;
  registry!: KV;

  private constructor(
    readonly server: RunningNatsServer,
    readonly nc: NatsConnection,
    readonly jsm: JetStreamManager,
    readonly fleet: Fleet,
  ) {}

  static async start(): Promise<Harness> {
    const server = await startNatsServer();
    try {
      const nc = await connectTo(server);
      const jsm = await jetstreamManager(nc);
      return new Harness(server, nc, jsm, new Fleet({ server: server.url, args: ARGS }));
    } catch (err) {
      await server.stop();
      throw err;
    }
  }

  spawn(name: string, server?: string): ServiceProcess {
    return this.fleet.spawn({ name, ...(server ? { server } : {}) });
  }

  /** Once a child has created the buckets: watch the seat key and record the registry stream. */
  async observe(): Promise<void> {
    const kvm = new Kvm(this.nc);
    this.seat = await kvm.open(SEAT_BUCKET);
    this.registry = await kvm.open(REGISTRY_BUCKET);
    const w = await this.seat.watch({ key: "holder" });
    this.stopWatch = () => w.stop();
    void (async () => {
      for await (const e of w) {
        let holder: HolderValue | undefined;
        if (e.operation === "PUT") holder = e.json<HolderValue>();
        this.seatEvents.push({ at: Date.now(), op: e.operation, revision: e.revision, holder });
      }
    })().catch(() => undefined);
    const c = await jetstream(this.nc).consumers.get(REGISTRY_STREAM);
    this.consumer = await c.consume();
    void (async () => {
      for await (const m of this.consumer!) {
        this.recorded.set(m.seq, {
          seq: m.seq,
          subject: m.subject,
          writer: m.headers?.get(WRITER_HEADER) || undefined,
          op: m.headers?.get("KV-Operation") || "PUT",
          expected: m.headers?.get(EXPECTED_HEADER) || undefined,
        });
      }
    })().catch(() => undefined);
  }

  /** The holder as the key says now (undefined when absent or deleted). */
  async holder(): Promise<HolderValue | undefined> {
    const e = await this.seat.get("holder");
    return e && e.operation === "PUT" ? e.json<HolderValue>() : undefined;
  }

  /** The first seat event at or after `since` naming a holder other than `not`. */
  seatEventAfter(since: number, not: string | undefined): SeatEvent | undefined {
    return this.seatEvents.find((e) => e.at >= since && e.holder !== undefined && e.holder.instance !== not);
  }

  /** Every registry write, in stream order: the live record merged with what the stream still holds. */
  async writes(): Promise<Written[]> {
    const last = (await this.jsm.streams.info(REGISTRY_STREAM)).state.last_seq;
    // Let the live record catch up, then fill in from the stream what it may have missed.
    await until("the registry recorder catches up", () => (this.recorded.has(last) ? true : undefined), 3000).catch(() => undefined);
    const all = new Map(this.recorded);
    for (let seq = 1; seq <= last; seq++) {
      if (all.has(seq)) continue;
      const m = await this.jsm.streams.getMessage(REGISTRY_STREAM, { seq }).catch(() => null);
      if (!m) continue; // replaced by a later write to the same key, or deleted
      all.set(seq, {
        seq,
        subject: m.subject,
        writer: m.header?.get(WRITER_HEADER) || undefined,
        op: m.header?.get("KV-Operation") || "PUT",
        expected: m.header?.get(EXPECTED_HEADER) || undefined,
      });
    }
    return [...all.values()].sort((a, b) => a.seq - b.seq);
  }

  /** The writer of the last message of a registry key (undefined: the test's own write). */
  async lastWriterOf(kind: string): Promise<string | undefined> {
    const m = await this.jsm.streams.getMessage(REGISTRY_STREAM, { last_by_subj: `$KV.${REGISTRY_BUCKET}.${kind}` });
    return m?.header?.get(WRITER_HEADER) || undefined;
  }

  async tamper(tag: string): Promise<void> {
    await this.registry.put("secret", JSON.stringify({ kind: "secret", module: `someone-else-${tag}`, verb: "x" }));
    await this.registry.put("bogus", JSON.stringify({ tag }));
  }

  /** The tampering is undone: secret is the compiled value again, bogus is gone. Returns who did it. */
  async repairedBy(): Promise<{ secret?: string; bogus?: string } | undefined> {
    const s = await this.registry.get("secret");
    const b = await this.registry.get("bogus");
    const secretOk = s?.operation === "PUT" && s.json<{ module: string }>().module === "mesh-vault";
    const bogusGone = b === null || b.operation !== "PUT";
    if (!secretOk || !bogusGone) return undefined;
    return { secret: await this.lastWriterOf("secret"), bogus: b === null ? undefined : await this.lastWriterOf("bogus") };
  }

  /** Wait until the compiled table is in the bucket (the first holder's first reconcile). */
  async registryWritten(): Promise<void> {
    await until(
      "the first reconcile writes the compiled table",
      async () => ((await this.jsm.streams.info(REGISTRY_STREAM)).state.messages >= KINDS_IN_TABLE ? true : undefined),
      START_MS,
    );
  }

  async stop(): Promise<void> {
    await this.fleet.killAll();
    this.stopWatch?.();
    await this.consumer?.close().catch(() => undefined);
    await this.nc.close().catch(() => undefined);
    await this.server.stop();
  }
}

/** Consecutive runs of writers in stream order (the test's own writes left out). */
function writerRuns(ws: readonly Written[]): string[] {
  const runs: string[] = [];
  for (const w of ws) if (w.writer !== undefined && runs[runs.length - 1] !== w.writer) runs.push(w.writer);
  return runs;
}

/** Single writer: once a new writer appears, no earlier writer ever writes again. */
function assertSingleWriter(h: Harness, ws: readonly Written[], expectedRuns?: readonly string[]): void {
  const runs = writerRuns(ws);
  const detail = ws.map((w) => `${w.seq} ${w.subject.split(".").pop()} ${w.op} ${w.writer ?? "(test)"}`).join("\n");
  assert.equal(new Set(runs).size, runs.length, `an old writer wrote again after a new one: runs ${JSON.stringify(runs)}\n${detail}`);
  if (expectedRuns) assert.deepEqual(runs, expectedRuns, `writers in stream order\n${detail}`);
  // Compare-and-sets where the server offers them safely; before that, plain writes fenced by the seat alone
  // (a compare-and-set that nats-server 2.9 can apply on one replica and refuse on another).
  const conditional = conditionalRegistryWrites(h.nc.info?.version);
  const wrong = ws.filter((w) => w.writer !== undefined && (w.expected !== undefined) !== conditional);
  assert.deepEqual(
    wrong.map((w) => w.seq),
    [],
    `registry writes ${conditional ? "not " : ""}made as compare-and-sets on nats-server ${h.nc.info?.version}\n${detail}`,
  );
}

/** Wait until a child logs its seat (its buckets exist, its projections start). */
async function seatSeen(p: ServiceProcess): Promise<LogLine> {
  return p.waitForLine(seatLine, START_MS, "a seat line");
}

/** Wait until exactly one of `ps` holds the seat, the others are warm standbys naming it; return the holder. */
async function oneHolder(h: Harness, ps: readonly ServiceProcess[]): Promise<ServiceProcess> {
  await Promise.all(ps.map((p) => Promise.all([seatSeen(p), p.waitForLine(syncedLine, START_MS, "projections synced")])));
  return until("exactly one holder, named by the key and by every process's log", async () => {
    const key = await h.holder();
    if (!key) return undefined;
    const holders = ps.filter((p) => claim(p)?.isHolder);
    if (holders.length !== 1) return undefined;
    const holder = holders[0]!;
    if (key.instance !== holder.instance || key.pid !== holder.pid) return undefined;
    if (!ps.every((p) => claim(p)?.holder === holder.instance)) return undefined;
    return holder;
  });
}

/**
 * From the log lines: intervals during which each process claimed to hold the
 * seat (from a seat line with isHolder true to the next with isHolder false,
 * its exit, or `end`), then every moment where a claim starts: at none of them
 * may two processes claim at once.
 */
function overlappingClaims(ps: readonly ServiceProcess[], end: number): string[] {
  const intervals: { name: string; from: number; to: number }[] = [];
  for (const p of ps) {
    let from: number | undefined;
    for (const l of p.lines.filter(seatLine)) {
      if (l.fields["isHolder"] === true && from === undefined) from = l.time;
      else if (l.fields["isHolder"] === false && from !== undefined) {
        intervals.push({ name: p.name, from, to: l.time });
        from = undefined;
      }
    }
    if (from !== undefined) intervals.push({ name: p.name, from, to: p.exit?.at ?? end });
  }
  const problems: string[] = [];
  for (const t of intervals.map((i) => i.from).sort((a, b) => a - b)) {
    const at = intervals.filter((i) => i.from <= t && t < i.to);
    if (new Set(at.map((i) => i.name)).size > 1) {
      problems.push(
        `${new Date(t).toISOString()}: ${at.map((i) => `${i.name} [${new Date(i.from).toISOString()}, ${new Date(i.to).toISOString()})`).join(" and ")}`,
      );
    }
  }
  return problems;
}

function measured(what: string, fields: Record<string, number | string>): void {
  console.log(
    `MEASURED seat ${what} ${Object.entries(fields)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  );
}

describe("the seat, with real service processes", { timeout: 90_000 }, () => {
  /** Every harness of this file: each test stops its own; after() kills whatever is left, even on failure. */
  const harnesses = new Set<Harness>();
  const fresh = async (): Promise<Harness> => {
    const h = await Harness.start();
    harnesses.add(h);
    return h;
  };
  const done = async (h: Harness | undefined): Promise<void> => {
    if (!h) return;
    harnesses.delete(h);
    await h.stop();
  };
  after(async () => {
    await Promise.all([...harnesses].map((h) => h.stop().catch(() => undefined)));
    harnesses.clear();
  });

  test("three instances started together give exactly one holder, and it keeps the seat", async () => {
    const h = await fresh();
    try {
      const ps = [h.spawn("a"), h.spawn("b"), h.spawn("c")];
      await seatSeen(ps[0]!);
      await h.observe();
      const holder = await oneHolder(h, ps);
      await h.registryWritten();
      // A ttl and a half with a live holder (waiting on the clock is the point): no standby takes the seat from it.
      const since = Date.now();
      await sleepUntil(since + TTL_MS * 1.5);
      const changes = h.seatEvents.filter((e) => e.op !== "PUT" || e.holder?.instance !== holder.instance);
      assert.deepEqual(changes, [], "only the holder's own renewals change the key");
      const renewals = h.seatEvents.filter((e) => e.at >= since).length;
      assert.ok(renewals >= 3, `the holder renews several times per ttl (saw ${renewals} in 1.5 ttl)`);
      assert.equal((await oneHolder(h, ps)).pid, holder.pid);
      assert.equal(ps.filter((p) => p.lines.some(holdsLine)).length, 1, "only one process ever logged that it holds the seat");
      assertSingleWriter(h, await h.writes(), [holder.instance!]);
    } finally {
      await done(h);
    }
  });

  test("kill -9 the holder: a standby holds the seat within ttl + 1 s and repairs the registry's drift", async () => {
    const h = await fresh();
    try {
      const ps = [h.spawn("a"), h.spawn("b"), h.spawn("c")];
      await seatSeen(ps[0]!);
      await h.observe();
      const old = await oneHolder(h, ps);
      await h.registryWritten();
      const lastRenewalSeen = h.seatEvents[h.seatEvents.length - 1]!.at;
      const killedAt = Date.now();
      old.signal("SIGKILL");
      await old.exited;
      await h.tamper("after-crash");
      const event = await until("a standby takes the seat", () => h.seatEventAfter(killedAt, old.instance), TTL_MS + 3000);
      const takeoverMs = event.at - killedAt;
      const repair = await until("the registry's drift is repaired", () => h.repairedBy(), 5000);
      const repairedAt = Date.now();
      measured("crash_takeover", {
        takeover_ms: takeoverMs,
        since_last_renewal_ms: event.at - lastRenewalSeen,
        ttl_ms: TTL_MS,
        limit_ms: TTL_MS + 1000,
        repaired_after_takeover_ms: repairedAt - event.at,
      });
      assert.ok(takeoverMs <= TTL_MS + 1000, `takeover took ${takeoverMs} ms, more than ttl + 1 s`);
      const successor = await oneHolder(
        h,
        ps.filter((p) => p !== old),
      );
      assert.equal(successor.instance, event.holder!.instance);
      assert.deepEqual(repair, { secret: successor.instance, bogus: successor.instance }, "the new holder repaired the drift");
      assertSingleWriter(h, await h.writes(), [old.instance!, successor.instance!]);
    } finally {
      await done(h);
    }
  });

  test("SIGTERM hands the seat over in under a second, and the old holder exits 0", async () => {
    const h = await fresh();
    try {
      let alive = [h.spawn("a"), h.spawn("b"), h.spawn("c")];
      await seatSeen(alive[0]!);
      await h.observe();
      let holder = await oneHolder(h, alive);
      await h.registryWritten();
      const writers = [holder.instance!];
      // Twice: the first holder to the second, the second to the third (two samples).
      for (let sample = 1; sample <= 2; sample++) {
        const old = holder;
        const t0 = Date.now();
        old.signal("SIGTERM");
        const event = await until("a standby takes the released seat", () => h.seatEventAfter(t0, old.instance), TTL_MS + 3000);
        const handoverMs = event.at - t0;
        const exit = await old.exited;
        measured("handover", { handover_ms: handoverMs, sample: `${sample}/2`, ttl_ms: TTL_MS, exit_ms: exit.at - t0 });
        assert.ok(handoverMs < 1000, `graceful handover took ${handoverMs} ms`);
        assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, `exit status\n${old.tail()}`);
        assert.ok(
          old.lines.some((l) => l.msg === "released the seat for a standby to take"),
          `it released the seat\n${old.tail()}`,
        );
        assert.ok(
          h.seatEvents.some((e) => e.at >= t0 && e.op === "DEL" && e.at <= event.at),
          "the seat was released by a delete before the standby took it",
        );
        alive = alive.filter((p) => p !== old);
        holder = await oneHolder(h, alive);
        assert.equal(holder.instance, event.holder!.instance);
        // The new holder reconciles: tamper and see it repair.
        await h.tamper(`after-handover-${sample}`);
        const repair = await until("the new holder repairs drift", () => h.repairedBy(), 5000);
        assert.deepEqual(repair, { secret: holder.instance, bogus: holder.instance });
        writers.push(holder.instance!);
      }
      assertSingleWriter(h, await h.writes(), writers);
    } finally {
      await done(h);
    }
  });

  test("a holder paused past the ttl (SIGSTOP) that wakes up (SIGCONT) never writes again: one writer at a time", async () => {
    const h = await fresh();
    try {
      const a = h.spawn("a");
      await a.waitForLine(holdsLine, START_MS, "holds the seat");
      await h.observe();
      await h.registryWritten();
      const b = h.spawn("b");
      assert.equal((await oneHolder(h, [a, b])).pid, a.pid);

      const stoppedAt = Date.now();
      a.signal("SIGSTOP");
      await h.tamper("while-stopped");
      const taken = await until("the standby takes the paused holder's seat", () => h.seatEventAfter(stoppedAt, a.instance), TTL_MS + 3000);
      assert.equal(taken.holder!.instance, b.instance);
      assert.deepEqual(await until("the new holder repairs the drift", () => h.repairedBy(), 5000), { secret: b.instance, bogus: b.instance });
      // The scenario is "paused past the ttl": wait on the clock until a ttl and a half has passed since SIGSTOP.
      await sleepUntil(stoppedAt + TTL_MS * 1.5);

      const linesBefore = a.lines.length;
      const continuedAt = Date.now();
      a.signal("SIGCONT");
      await h.tamper("right-after-sigcont");
      // The woken process notices it lost the seat, and the reconcile its drift asks for is fenced.
      // It first gives up its hold (its write window closed while it was paused), then learns who holds the seat.
      await a.waitForLine(standbyLine, 5000, "it no longer holds the seat", linesBefore);
      await a.waitForLine(
        (l) => standbyLine(l) && (l.fields["holder"] as HolderValue | null)?.instance === b.instance,
        5000,
        "it names its successor as the holder",
        linesBefore,
      );
      await a.waitForLine((l) => l.msg === "not reconciling: this instance does not hold the seat", 5000, "a fenced reconcile", linesBefore);
      assert.deepEqual(await until("the new holder repairs the second drift", () => h.repairedBy(), 5000), {
        secret: b.instance,
        bogus: b.instance,
      });
      // Give the woken process a whole ttl to misbehave (waiting on the clock is the point) before judging the stream.
      await sleepUntil(continuedAt + TTL_MS);

      const ws = await h.writes();
      assertSingleWriter(h, ws, [a.instance!, b.instance!]);
      const firstByB = ws.find((w) => w.writer === b.instance)!.seq;
      assert.ok(
        ws.filter((w) => w.writer === a.instance).every((w) => w.seq < firstByB),
        "the paused holder wrote nothing after its successor",
      );
      const reconciles = a.lines.slice(linesBefore).filter((l) => l.msg.startsWith("registry reconciled"));
      assert.deepEqual(reconciles, [], `the woken process reconciled nothing\n${a.tail()}`);
      assert.equal(claim(b)?.isHolder, true);
      assert.equal((await h.holder())?.instance, b.instance);
    } finally {
      await done(h);
    }
  });

  describe("a connection that drops (for more than the ttl) and returns", () => {
    let h: Harness | undefined;
    let proxy: TcpProxy | undefined;
    let a: ServiceProcess;
    let b: ServiceProcess;
    let endedAt = 0;

    before(async () => {
      h = await fresh();
      const hh = h;
      proxy = await startTcpProxy({ port: hh.server.port });
      a = hh.spawn("a-via-proxy", proxy.url);
      await a.waitForLine(holdsLine, START_MS, "holds the seat");
      await hh.observe();
      await hh.registryWritten();
      b = hh.spawn("b-direct");
      assert.equal((await oneHolder(hh, [a, b])).pid, a.pid);

      const linesBeforeCut = a.lines.length;
      const cutAt = Date.now();
      proxy.cut();
      await a.waitForLine((l) => l.msg.startsWith("lost the connection to NATS"), 5000, "the connection is lost", linesBeforeCut);
      const taken = await until("the direct instance takes the seat", () => hh.seatEventAfter(cutAt, a.instance), TTL_MS + 3000);
      assert.equal(taken.holder!.instance, b.instance);
      await hh.tamper("while-cut");
      assert.deepEqual(await until("the new holder repairs the drift", () => hh.repairedBy(), 5000), { secret: b.instance, bogus: b.instance });
      // The scenario is "cut for longer than the ttl": wait on the clock for it.
      await sleepUntil(cutAt + TTL_MS * 1.5);

      const linesBeforeRestore = a.lines.length;
      const restoredAt = Date.now();
      proxy.restore();
      await a.waitForLine((l) => l.msg.startsWith("reconnected to NATS"), 10_000, "reconnected", linesBeforeRestore);
      await until(
        "the returning instance is a standby naming the new holder",
        () => {
          const c = claim(a);
          return c && !c.isHolder && c.holder === b.instance ? true : undefined;
        },
        5000,
      );
      await hh.tamper("after-restore");
      assert.deepEqual(await until("the holder repairs the drift", () => hh.repairedBy(), 5000), { secret: b.instance, bogus: b.instance });
      // Give the returning process a whole ttl to misbehave (waiting on the clock is the point) before judging.
      await sleepUntil(restoredAt + TTL_MS);
      endedAt = Date.now();
    });

    after(async () => {
      await proxy?.close();
      await done(h);
    });

    test("the direct instance holds the seat; the returning one is a standby naming it", async () => {
      assert.equal((await h!.holder())?.instance, b.instance);
      assert.equal(claim(b)?.isHolder, true);
      assert.deepEqual(claim(a), { isHolder: false, holder: b.instance });
      assert.ok(proxy!.accepted >= 2, "the cut instance came back through the proxy");
    });

    test("the registry stream shows a single writer, before and after the takeover", async () => {
      assertSingleWriter(h!, await h!.writes(), [a.instance!, b.instance!]);
    });

    test("at no sampled moment did both processes claim to hold the seat (their logs)", () => {
      const overlaps = overlappingClaims([a, b], endedAt);
      assert.deepEqual(overlaps, [], `two processes claimed the seat at once:\n${a.tail(30)}\n---\n${b.tail(10)}`);
    });
  });
});
