/**
 * The load of a chaos run (I/O): node writers and verb readers.
 *
 * A writer is a node's client: it connects as its node's user (the node's
 * least grant, its inbox prefix) and writes only its own keys, puts and
 * deletes, one at a time, each value carrying a token unique to the write
 * (`{"op":"n1.42",…}`), so that any value seen later names the write it came
 * from. Every write is recorded with its outcome: acknowledged (with the
 * stream sequence), failed (refused: not stored), or indeterminate (no answer:
 * stored or not).
 *
 * A reader asks the verb through the typed client for one node's keys of one
 * bucket, with `minRevision` set to the last acknowledged write of that node
 * to that bucket (or without it), and records the reply's status, revision
 * and entries.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { headers } from "@nats-io/nats-core";
import { jetstream, type JetStreamClient } from "@nats-io/jetstream";
import { ProvisionerClient, VerbError, encodeCollection } from "mesh-provisioner-client";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { BUCKETS } from "mesh-provisioner-client/keys";
import { tokenOf, type History, type ReadRecord, type WriteOp } from "./history.js";
import type { Rng } from "./rng.js";
import { NODE_BUCKETS, type NodeBucket } from "./schedule.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The last acknowledged in-shape write of each node to each bucket: what readers ask minRevision for. */
export class Ledger {
  private readonly last = new Map<string, number>();

  ack(op: WriteOp): void {
    if (op.shape !== "in" || op.seq === undefined) return;
    const k = `${op.bucket}/${op.node}`;
    if ((this.last.get(k) ?? 0) < op.seq) this.last.set(k, op.seq);
  }

  lastAcked(bucket: NodeBucket, node: string): number | undefined {
    return this.last.get(`${bucket}/${node}`);
  }
}

/**
 * A write that failed: refused (not stored) or without an answer (may be
 * stored). "jetstream is not enabled" is how the client reports a publish
 * nobody received (no responders: the stream had no leader to take it).
 */
export function outcomeOfError(err: unknown): "failed" | "indeterminate" {
  const msg = String((err as Error)?.message ?? err);
  if (/no responders|\b503\b|jetstream is not enabled|maximum|exceed|too large|wrong last sequence|insufficient resources|stream not found/i.test(msg))
    return "failed";
  return "indeterminate";
}

/** The in-shape keys a node writes, per bucket. */
export function nodeKeys(node: string): Record<NodeBucket, string[]> {
  const needs: string[] = [];
  for (const m of ["web", "db"]) for (const k of ["config", "secret", "port"]) for (const n of ["a", "b"]) needs.push(`${node}.${m}.${k}.${n}`);
  const applied = ["web", "db", "cache", "auth"].map((m) => `${node}.${m}`);
  const collect: string[] = [];
  for (const c of ["shell:zsh:normal", "env"]) for (const who of ["web", "db"]) collect.push(`${node}.${encodeCollection(c)}.${who}`);
  return { needs, applied, collect };
}

/** Keys out of their bucket's shape that a node's grant still lets it write. */
export function outOfShapeKey(node: string, bucket: NodeBucket, j: number): string {
  switch (bucket) {
    case "needs":
      return j % 2 === 0 ? `${node}.oos${j}.config` : `${node}.web.config.a.b${j}`;
    case "applied":
      return `${node}.web.x${j}`;
    case "collect":
      return j % 2 === 0 ? `${node}.shell=3azsh${j}.web` : `${node}.a=61${j}.web`;
  }
}

export class NodeWriter {
  private readonly js: JetStreamClient;
  private readonly keys: Record<NodeBucket, string[]>;
  private counter = 0;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    readonly node: string,
    nc: NatsConnection,
    private readonly history: History,
    private readonly rng: Rng,
    private readonly ledger: Ledger,
  ) {
    this.js = jetstream(nc, { timeout: 3000 });
    this.keys = nodeKeys(node);
  }

  /** One write, recorded with its outcome. */
  async write(bucket: NodeBucket, key: string, op: "put" | "delete", shape: "in" | "out", opts: { pad?: number; flood?: true } = {}): Promise<WriteOp> {
    const token = op === "put" ? `${this.node}.${this.counter++}` : undefined;
    const value = op === "put" ? JSON.stringify({ op: token, node: this.node, ...(opts.pad ? { pad: "x".repeat(opts.pad) } : {}) }) : undefined;
    const rec = this.history.write({
      node: this.node,
      bucket,
      key,
      op,
      shape,
      ...(token ? { token } : {}),
      ...(opts.flood ? { flood: true as const } : {}),
      ...(value !== undefined ? { bytes: Buffer.byteLength(value) } : {}),
    });
    const subject = `$KV.${BUCKETS[bucket]}.${key}`;
    try {
      let seq: number;
      if (value !== undefined) {
        seq = (await this.js.publish(subject, value)).seq;
      } else {
        const h = headers();
        h.set("KV-Operation", "DEL");
        seq = (await this.js.publish(subject, undefined, { headers: h })).seq;
      }
      rec.outcome = "ack";
      rec.seq = seq;
      this.ledger.ack(rec);
    } catch (err) {
      rec.outcome = outcomeOfError(err);
      rec.error = String((err as Error)?.message ?? err).slice(0, 200);
    }
    rec.doneAt = this.history.now();
    return rec;
  }

  /** Keys out of shape, a few of them deleted again (fault: out-of-shape-burst). */
  async outOfShapeBurst(bucket: NodeBucket, count: number, rng: Rng): Promise<WriteOp[]> {
    const ops: WriteOp[] = [];
    for (let i = 0; i < count; i++) {
      const key = outOfShapeKey(this.node, bucket, rng.int(0, 5));
      ops.push(await this.write(bucket, key, rng.chance(0.25) ? "delete" : "put", "out"));
    }
    return ops;
  }

  start(): void {
    this.running = (async () => {
      while (!this.stopped) {
        const bucket = this.rng.pick(NODE_BUCKETS);
        const key = this.rng.pick(this.keys[bucket]);
        const op = this.rng.chance(0.15) ? "delete" : "put";
        await this.write(bucket, key, op, "in");
        await sleep(this.rng.between(80, 260));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}

/** Ask the verb once for a node's keys of a bucket; record what came back. */
export async function readOnce(
  client: ProvisionerClient,
  history: History,
  reader: string,
  what: NodeBucket,
  node: string,
  minRevision: number | undefined,
): Promise<ReadRecord> {
  const rec = history.read({ reader, what, node, ...(minRevision !== undefined ? { minRevision } : {}) });
  try {
    const a = await client.get({ what, node, ...(minRevision !== undefined ? { minRevision } : {}) });
    rec.status = 200;
    rec.revision = a.revision;
    rec.entries = a.entries.map((e) => ({ key: e.key, revision: e.revision, token: tokenOf(e.value) }));
  } catch (err) {
    const msg = String((err as Error)?.message ?? err);
    rec.status = err instanceof VerbError ? err.serviceCode : /timeout/i.test(msg) ? "timeout" : /no responders|\b503\b/i.test(msg) ? "no-responders" : "error";
    rec.error = msg.slice(0, 200);
  }
  rec.doneAt = history.now();
  return rec;
}

export class VerbReader {
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    readonly name: string,
    private readonly client: ProvisionerClient,
    private readonly history: History,
    private readonly rng: Rng,
    private readonly ledger: Ledger,
    private readonly nodes: readonly string[],
  ) {}

  start(): void {
    this.running = (async () => {
      while (!this.stopped) {
        const what = this.rng.pick(NODE_BUCKETS);
        const node = this.rng.pick(this.nodes);
        const withMin = this.rng.chance(0.6);
        await readOnce(this.client, this.history, this.name, what, node, withMin ? this.ledger.lastAcked(what, node) : undefined);
        await sleep(this.rng.between(100, 300));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}

/** Malformed bodies, each of which the verb must refuse with a 400. */
export function malformedBody(rng: Rng): string {
  const bodies = [
    () => "{not json",
    () => JSON.stringify({ wat: "needs" }),
    () => JSON.stringify({ what: "needs", node: "n1.*" }),
    () => JSON.stringify({ what: "needs", node: ">" }),
    () => JSON.stringify({ what: "needs", collection: "x" }),
    () => JSON.stringify({ what: "registry", node: "n1" }),
    () => JSON.stringify({ what: "nope" }),
    () => JSON.stringify({ what: "needs", limit: 0 }),
    () => JSON.stringify({ what: "needs", limit: 100_001 }),
    () => JSON.stringify({ what: "needs", minRevision: -1 }),
    () => JSON.stringify({ what: "needs", node: null }),
    () => JSON.stringify({ what: "needs", node: "" }),
    () => JSON.stringify([1, 2, 3]),
    () => JSON.stringify({ what: "needs", node: "x".repeat(17_000) }),
  ];
  return rng.pick(bodies)();
}

/** A burst of malformed requests (fault: malformed-burst), sent straight on the connection. */
export async function malformedBurst(nc: NatsConnection, history: History, rng: Rng, count: number, fault: number): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  for (let i = 0; i < count; i++) {
    const body = malformedBody(rng);
    const shown = body.length > 120 ? `${body.slice(0, 100)}… (${body.length} bytes)` : body;
    const rec = history.read({ reader: "malformed", malformed: shown, fault });
    try {
      const m = await nc.request(VERB_SUBJECT, body, { timeout: 4000 });
      const code = m.headers?.get("Nats-Service-Error-Code");
      rec.status = code ? Number(code) : 200;
    } catch (err) {
      const msg = String((err as Error)?.message ?? err);
      rec.status = /timeout/i.test(msg) ? "timeout" : /no responders|\b503\b/i.test(msg) ? "no-responders" : "error";
      rec.error = msg.slice(0, 200);
    }
    rec.doneAt = history.now();
    out.push(rec);
  }
  return out;
}
