/**
 * The run's own eyes on the cluster (I/O), as the unrestricted operator user:
 * the seat's key (a watch, and a poll every 250 ms in case the watch misses a
 * change while it recovers), every message of the registry's stream (an
 * ordered consumer, then a scan of what the stream still holds at the end),
 * and the buckets read directly at the end, message by message. Also the
 * operator's acts the faults need: who leads a stream, which consumers a
 * stream has, a registry write that names no writer.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { headers } from "@nats-io/nats-core";
import { jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { WRITER_HEADER } from "../src/reconcile/apply.js";
import { BUCKETS, SEAT_BUCKET, streamName } from "mesh-provisioner-client/keys";
import type { What } from "mesh-provisioner-client/keys";
import { tokenOf, type BucketFinal, type History, type HolderRecord, type SeatRecord } from "./history.js";

export const TAMPER_HEADER = "Chaos-Tamper";
export const SEAT_STREAM = streamName(SEAT_BUCKET);
export const REGISTRY_STREAM = streamName(BUCKETS.registry);
export const streamOf = (bucket: What | "seat"): string => (bucket === "seat" ? SEAT_STREAM : streamName(BUCKETS[bucket]));

const nanosToMs = (n: bigint | number): number => Number(BigInt(n) / 1_000_000n);

export class Observer {
  readonly js: JetStreamClient;
  private seatKv!: KV;
  private registryMsgs: ConsumerMessages | undefined;
  private seatWatchStop: (() => void) | undefined;
  private seatPoll: NodeJS.Timeout | undefined;
  private readonly seen = new Set<number>();
  private readonly registrySeen = new Set<number>();

  private constructor(
    readonly nc: NatsConnection,
    readonly jsm: JetStreamManager,
    private readonly history: History,
  ) {
    this.js = jetstream(nc, { timeout: 3000 });
  }

  static async start(nc: NatsConnection, history: History): Promise<Observer> {
    const o = new Observer(nc, await jetstreamManager(nc, { timeout: 3000 }), history);
    o.seatKv = await new Kvm(o.js).open(SEAT_BUCKET);
    await o.followSeat();
    await o.recordRegistry();
    return o;
  }

  private noteSeat(revision: number, createdMs: number, op: string, value: Uint8Array | undefined): void {
    if (this.seen.has(revision)) return;
    this.seen.add(revision);
    let holder: HolderRecord | undefined;
    if (op === "PUT" && value) {
      try {
        const v = JSON.parse(new TextDecoder().decode(value)) as HolderRecord;
        holder = { instance: String(v.instance), pid: Number(v.pid), since: String(v.since) };
      } catch {
        holder = { instance: "(unreadable)", pid: 0, since: "" };
      }
    }
    const rec: SeatRecord = { revision, at: this.history.fromEpoch(createdMs), seenAt: this.history.now(), op, ...(holder ? { holder } : {}) };
    const list = this.history.seat;
    let i = list.length;
    while (i > 0 && list[i - 1]!.revision > revision) i--;
    list.splice(i, 0, rec);
  }

  private async followSeat(): Promise<void> {
    const w = await this.seatKv.watch({ key: "holder" });
    this.seatWatchStop = () => w.stop();
    void (async () => {
      for await (const e of w) this.noteSeat(e.revision, e.created.getTime(), e.operation, e.value);
    })().catch(() => undefined);
    const poll = (): void => {
      void this.seatKv
        .get("holder")
        .then((e) => e && this.noteSeat(e.revision, e.created.getTime(), e.operation, e.value))
        .catch(() => undefined)
        .finally(() => {
          if (this.seatPoll) this.seatPoll = setTimeout(poll, 250);
        });
    };
    this.seatPoll = setTimeout(poll, 250);
  }

  /** The holder as last recorded (undefined when nobody holds it). */
  currentHolder(): HolderRecord | undefined {
    const last = this.history.seat[this.history.seat.length - 1];
    return last?.op === "PUT" ? last.holder : undefined;
  }

  private noteRegistry(seq: number, atMs: number, subject: string, h: { get(k: string): string } | undefined): void {
    if (this.registrySeen.has(seq)) return;
    this.registrySeen.add(seq);
    const writer = h?.get(WRITER_HEADER) || undefined;
    const tamper = h?.get(TAMPER_HEADER) ? true : undefined;
    const rec = {
      seq,
      at: this.history.fromEpoch(atMs),
      kind: subject.slice(`$KV.${BUCKETS.registry}.`.length),
      op: h?.get("KV-Operation") || "PUT",
      ...(writer ? { writer } : {}),
      ...(tamper ? { tamper } : {}),
    };
    const list = this.history.registry;
    let i = list.length;
    while (i > 0 && list[i - 1]!.seq > seq) i--;
    list.splice(i, 0, rec);
  }

  private async recordRegistry(): Promise<void> {
    const c = await this.js.consumers.get(REGISTRY_STREAM);
    this.registryMsgs = await c.consume();
    const msgs = this.registryMsgs;
    void (async () => {
      for await (const m of msgs) this.noteRegistry(m.seq, nanosToMs(m.info.timestampNanos), m.subject, m.headers);
    })().catch(() => undefined);
  }

  /** Fill in the registry writes the live record missed from what the stream still holds; how many are gone unseen. */
  async finishRegistry(): Promise<number> {
    const last = (await this.jsm.streams.info(REGISTRY_STREAM)).state.last_seq;
    let unseen = 0;
    for (let seq = 1; seq <= last; seq++) {
      if (this.registrySeen.has(seq)) continue;
      const m = await this.jsm.streams.getMessage(REGISTRY_STREAM, { seq }).catch(() => null);
      if (m) this.noteRegistry(seq, m.time.getTime(), m.subject, m.header);
      else unseen++;
    }
    return unseen;
  }

  /** The server that leads a stream now (its server_name), or undefined during an election. */
  async leaderOf(stream: string): Promise<string | undefined> {
    return (await this.jsm.streams.info(stream)).cluster?.leader;
  }

  /** The service's watch consumers on a stream (their deliver subjects are under the provisioner's inbox prefix). */
  async serviceConsumers(stream: string): Promise<string[]> {
    const list = await this.jsm.consumers.list(stream).next();
    return list
      .filter((ci) => (ci.config.deliver_subject ?? "").startsWith("_INBOX_mesh-provisioner."))
      .map((ci) => ci.name)
      .sort();
  }

  async deleteConsumer(stream: string, name: string): Promise<boolean> {
    return this.jsm.consumers.delete(stream, name);
  }

  /** A registry write by the run itself (drift for the holder to repair): marked, and naming no writer. */
  async tamper(kind: string, value: string | undefined): Promise<number> {
    const h = headers();
    h.set(TAMPER_HEADER, "1");
    if (value === undefined) h.set("KV-Operation", "DEL");
    const ack = await this.js.publish(`$KV.${BUCKETS.registry}.${kind}`, value === undefined ? undefined : new TextEncoder().encode(value), { headers: h });
    return ack.seq;
  }

  async lastSeq(stream: string): Promise<number> {
    return (await this.jsm.streams.info(stream)).state.last_seq;
  }

  /** A bucket as its stream holds it now: every key whose last message is a put. */
  async readBucket(what: What): Promise<BucketFinal> {
    const stream = streamOf(what);
    const info = await this.jsm.streams.info(stream);
    const lastSeq = info.state.last_seq;
    const latest = new Map<string, { revision: number; value: string } | undefined>();
    if (info.state.messages > 0) {
      const c = await this.js.consumers.get(stream);
      const msgs = await c.consume();
      const prefix = `$KV.${BUCKETS[what]}.`;
      for await (const m of msgs) {
        const op = m.headers?.get("KV-Operation");
        latest.set(m.subject.slice(prefix.length), op === "DEL" || op === "PURGE" ? undefined : { revision: m.seq, value: m.string() });
        if (m.info.pending === 0) break;
      }
      msgs.stop();
    }
    const entries = [...latest]
      .flatMap(([key, e]) => (e ? [{ key, revision: e.revision, value: e.value, token: tokenOf(e.value) }] : []))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { what, lastSeq, entries };
  }

  async stop(): Promise<void> {
    clearTimeout(this.seatPoll);
    this.seatPoll = undefined;
    this.seatWatchStop?.();
    this.registryMsgs?.stop();
  }
}
