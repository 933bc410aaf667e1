/**
 * Injecting the planned faults (I/O), each at its time, overlapping as the
 * plan says. What a fault hits is resolved when it starts: the seat's holder
 * as the run last saw it, the server that leads a stream now, the service's
 * watch consumers that exist now; a fault with nothing to hit is recorded as
 * skipped, with why. Every fault that takes something away gives it back
 * (restart, SIGCONT, restore) after its planned duration.
 */
import { isDeepStrictEqual } from "node:util";
import type { NatsConnection } from "@nats-io/nats-core";
import type { ChaosCluster } from "./cluster.js";
import type { FaultRecord, History } from "./history.js";
import type { Instances } from "./instances.js";
import { malformedBurst, type NodeWriter } from "./actors.js";
import { streamOf, type Observer } from "./observe.js";
import type { Rng } from "./rng.js";
import type { PlannedFault } from "./schedule.js";
import { spoilCheckpoint } from "./spoil.js";

function sameJson(text: string, want: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(text), want);
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll until `fn` gives something, or undefined after `ms`. */
async function waitFor<T>(fn: () => T | undefined | Promise<T | undefined>, ms: number, every = 100): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch {
      /* not yet */
    }
    if (Date.now() > end) return undefined;
    await sleep(every);
  }
}

export interface InjectorDeps {
  readonly history: History;
  readonly cluster: ChaosCluster;
  readonly instances: Instances;
  readonly observer: Observer;
  readonly writers: ReadonlyMap<string, NodeWriter>;
  readonly floodWriter: NodeWriter;
  /** The connection malformed requests are sent on. */
  readonly verbNc: NatsConnection;
  readonly rng: Rng;
  readonly registryTable: ReadonlyMap<string, unknown>;
  /** The flooding node's keys: how large each value is. */
  readonly floodValueBytes: number;
  /** A value size over the service's --max-value-bytes, when it sets one: the flood also tries a few. */
  readonly oversizeBytes?: number;
}

export class Injector {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<void>>();
  private serverDown = false;
  /** Set when the chaos phase is over: a fault still going on (the flood) stops early. */
  private ending = false;
  /** A needs checkpoint kept from an earlier spoil: put back later, it is a stale one. */
  private stale: Uint8Array | undefined;

  constructor(private readonly d: InjectorDeps) {}

  /** Schedule every fault of the plan, `at` ms after now. */
  start(plan: readonly PlannedFault[]): void {
    for (const f of plan) {
      this.timers.push(
        setTimeout(() => {
          const p = this.inject(f).finally(() => this.running.delete(p));
          this.running.add(p);
        }, f.at),
      );
    }
  }

  /** Wait for every fault in progress to be healed (after the chaos phase: none is left to start). */
  async settle(): Promise<void> {
    this.ending = true;
    for (const t of this.timers) clearTimeout(t);
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private async inject(f: PlannedFault): Promise<void> {
    const { history } = this.d;
    const rec: FaultRecord = { id: f.id, kind: f.kind, plannedAt: f.at, startedAt: history.now() };
    history.faults.push(rec);
    try {
      await this.act(f, rec);
    } catch (err) {
      rec.detail = { ...rec.detail, error: String((err as Error)?.message ?? err).slice(0, 300) };
    }
    if (rec.skipped === undefined) rec.healedAt ??= history.now();
  }

  private async act(f: PlannedFault, rec: FaultRecord): Promise<void> {
    const { history, instances, observer } = this.d;
    const rng = this.d.rng.derive(`fault ${f.id}`);
    switch (f.kind) {
      case "kill-holder": {
        const h = observer.currentHolder();
        const slot = instances.byInstance(h?.instance);
        if (!h || !slot) return void (rec.skipped = h ? `the holder ${h.instance} is not a running instance` : "nobody holds the seat");
        rec.target = `${slot.name} ${h.instance}`;
        rec.slot = slot.name;
        await slot.kill(`fault ${f.id}`);
        const killedAt = history.now();
        void waitFor(() => history.seat.find((s) => s.seenAt >= killedAt && s.holder !== undefined && s.holder.instance !== h.instance), 60_000).then((s) => {
          if (s) rec.detail = { ...rec.detail, takeoverMs: Math.max(0, s.at - killedAt), newHolder: s.holder?.instance };
        });
        await sleep(f.durationMs);
        await waitFor(() => (slot.isCut ? undefined : true), 60_000);
        if (!slot.alive) slot.spawn();
        return;
      }
      case "restart-all": {
        const slots = instances.slots.filter((s) => s.alive);
        if (slots.length === 0) return void (rec.skipped = "no instance is running");
        rec.target = slots.map((s) => s.name).join(", ");
        await Promise.all(slots.map((s) => s.kill(`fault ${f.id}`)));
        await sleep(f.durationMs);
        await waitFor(() => (instances.slots.some((s) => s.isCut) ? undefined : true), 60_000);
        const startedAt = history.now();
        for (const s of instances.slots) if (!s.alive) s.spawn();
        void waitFor(() => (instances.allReady() ? true : undefined), 120_000).then((ok) => {
          rec.detail = { ...rec.detail, allReadyMs: ok ? history.now() - startedAt : null };
        });
        return;
      }
      case "pause-instance": {
        const slot = instances.bySlot(f.slot!);
        const p = slot.proc;
        if (!p || !slot.alive) return void (rec.skipped = `instance ${slot.name} is not running`);
        const wasHolder = p.instance !== undefined && observer.currentHolder()?.instance === p.instance;
        rec.target = `${slot.name} ${p.instance ?? p.pid}`;
        rec.slot = slot.name;
        rec.detail = { wasHolder, ms: f.durationMs };
        p.signal("SIGSTOP");
        await sleep(f.durationMs);
        p.signal("SIGCONT");
        return;
      }
      case "cut-connection": {
        const slot = instances.bySlot(f.slot!);
        rec.target = `${slot.name} ${slot.instance ?? ""}`.trim();
        rec.slot = slot.name;
        rec.detail = { wasHolder: slot.instance !== undefined && observer.currentHolder()?.instance === slot.instance, ms: f.durationMs };
        slot.cut();
        await sleep(f.durationMs);
        slot.restore();
        return;
      }
      case "cut-site-link": {
        // The site's leaf server and its instance stay up: only the leaf node link to the hub is gone.
        const link = this.d.cluster.siteLink;
        rec.target = "the site's leaf node link";
        rec.detail = { ms: f.durationMs };
        link.cut();
        await sleep(f.durationMs);
        link.restore();
        return;
      }
      case "kill-stream-leader": {
        if (this.serverDown) return void (rec.skipped = "another server is down");
        const stream = streamOf(f.bucket!);
        const leader = await waitFor(() => observer.leaderOf(stream), 5_000, 250);
        const server = leader === undefined ? undefined : this.d.cluster.byName(leader);
        if (!server) return void (rec.skipped = `no leader of ${stream} found`);
        this.serverDown = true;
        try {
          rec.target = `${server.name} (leading ${stream})`;
          await server.kill("SIGKILL");
          await sleep(f.durationMs);
          for (let attempt = 1; ; attempt++) {
            try {
              await server.restart();
              break;
            } catch (err) {
              if (attempt >= 5) throw err;
              await sleep(1000);
            }
          }
        } finally {
          this.serverDown = false;
        }
        return;
      }
      case "delete-consumer": {
        const stream = streamOf(f.bucket!);
        const names = await observer.serviceConsumers(stream);
        if (names.length === 0) return void (rec.skipped = `no watch consumer on ${stream}`);
        const name = names[Math.floor((f.pick ?? 0) * names.length)]!;
        rec.target = `${stream} consumer ${name}`;
        rec.detail = { deleted: await observer.deleteConsumer(stream, name), of: names.length };
        return;
      }
      case "out-of-shape-burst": {
        const w = this.d.writers.get(f.node!)!;
        rec.target = `${f.node} ${f.bucket}`;
        const ops = await w.outOfShapeBurst(f.bucket as "needs" | "applied" | "collect", f.count!, rng);
        rec.detail = { writes: ops.length, keys: [...new Set(ops.map((o) => o.key))] };
        return;
      }
      case "malformed-burst": {
        const reads = await malformedBurst(this.d.verbNc, history, rng, f.count!, f.id);
        rec.detail = { requests: reads.length, answered400: reads.filter((r) => r.status === 400).length };
        return;
      }
      case "registry-drift":
        return this.drift(f, rec, rng);
      case "spoil-checkpoint":
        return this.spoil(f, rec, rng);
      case "flood":
        return this.flood(f, rec);
    }
  }

  /** Registry writes by someone other than the holder: a wrong value, an unknown kind, a value not JSON, a delete. */
  private async drift(f: PlannedFault, rec: FaultRecord, rng: Rng): Promise<void> {
    const kinds = [...this.d.registryTable.keys()];
    const acts: [string, string | undefined][] = [];
    const k1 = rng.pick(kinds);
    acts.push([k1, JSON.stringify({ kind: k1, module: `chaos-${f.id}`, verb: "nowhere" })]);
    if (rng.chance(0.5)) acts.push([`chaosbogus${f.id}`, "{}"]);
    if (rng.chance(0.3)) acts.push([rng.pick(kinds), "not json"]);
    if (rng.chance(0.3)) acts.push([rng.pick(kinds), undefined]);
    rec.target = acts.map(([k]) => k).join(", ");
    const done: string[] = [];
    for (const [kind, value] of acts) {
      const seq = await waitFor(() => this.d.observer.tamper(kind, value), 10_000, 500);
      done.push(`${kind}${value === undefined ? " deleted" : ""}: ${seq === undefined ? "not written" : `seq ${seq}`}`);
    }
    const at = this.d.history.now();
    rec.detail = { writes: done };
    const repaired = await waitFor(
      async () => {
        const b = await this.d.observer.readBucket("registry");
        if (b.entries.length !== this.d.registryTable.size) return undefined;
        for (const e of b.entries) {
          const want = this.d.registryTable.get(e.key);
          if (want === undefined || !sameJson(e.value, want)) return undefined;
        }
        return true;
      },
      60_000,
      250,
    );
    rec.detail = { writes: done, ...(repaired ? { repairedMs: this.d.history.now() - at } : { repaired: false }) };
  }

  /** One node writes keys without end (here: `count` of them), with nothing but its own grant. */
  /**
   * Spoil the needs' checkpoint one way or another, then restart one
   * instance on it: it must start from the checkpoint only where it still
   * describes the bucket, and read the bucket whole otherwise.
   */
  private async spoil(f: PlannedFault, rec: FaultRecord, rng: Rng): Promise<void> {
    const slot = this.d.instances.bySlot(f.slot!);
    if (!slot.alive) return void (rec.skipped = `instance ${slot.name} is not running`);
    const how = rng.pick(["corrupt", "truncate", "stale", "purge-delete-markers"] as const);
    rec.target = `${slot.name}, the needs checkpoint (${how})`;
    rec.slot = slot.name;
    rec.detail = await spoilCheckpoint(this.d.observer, how, this.stale);
    if (how !== "stale") this.stale ??= (rec.detail as { copy?: Uint8Array }).copy;
    delete (rec.detail as { copy?: Uint8Array }).copy;
    await slot.kill(`fault ${f.id}`);
    await sleep(f.durationMs);
    if (!slot.alive) slot.spawn();
  }

  private async flood(f: PlannedFault, rec: FaultRecord): Promise<void> {
    const w = this.d.floodWriter;
    rec.target = w.node;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < f.count! && !this.ending) {
        const i = next++;
        // A flooding node does not give up: a write refused (no stream leader, say) is made again.
        for (let tries = 0; tries < 20 && !this.ending; tries++) {
          const op = await w.write("needs", `${w.node}.m${i % 50}.config.k${i}`, "put", "in", { pad: this.d.floodValueBytes, flood: true });
          if (op.outcome !== "failed") break;
          await sleep(250);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    // Values over the largest a node may write (--max-value-bytes, when the service sets it): each must be refused.
    if (this.d.oversizeBytes !== undefined && !this.ending) {
      for (let i = 0; i < 3; i++) await w.write("needs", `${w.node}.big.config.k${i}`, "put", "in", { pad: this.d.oversizeBytes, flood: true });
    }
    const ops = this.d.history.writes.filter((x) => x.flood);
    rec.detail = {
      keys: f.count,
      written: next,
      valueBytes: this.d.floodValueBytes,
      acknowledged: ops.filter((x) => x.outcome === "ack").length,
      failed: ops.filter((x) => x.outcome === "failed").length,
      indeterminate: ops.filter((x) => x.outcome === "indeterminate").length,
    };
  }
}
