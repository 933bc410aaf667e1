/**
 * The messages of one ordered push consumer, read straight off its deliver
 * subject (I/O). This is what nats.js's ordered push consumer does, less
 * what the watch does itself (it makes a new consumer from the revision it
 * applied whenever this one ends) and less the per-message objects: each
 * message's stream sequence, delivery sequence and pending count are read
 * from its reply subject in one pass (`ack-reply.ts`), and the message is
 * handed on as a raw entry.
 *
 * Plain messages (no headers: every put) are read where they lie in the
 * socket's bytes (`wire/raw-reads.ts`); the others, and any the client
 * parsed itself, as the bytes its message object keeps (`subjectBytes`).
 * Either way the reply subject is never decoded, and the key is read as
 * latin1 where it is ASCII (as keys in shape are).
 *
 * The consumer ends, and `ended` is called once, when:
 * - a delivery is missed (its sequence is not the one after the last): an
 *   ordered consumer delivers every message exactly once, in order;
 * - the server sends a 409 status (the consumer is gone);
 * - two idle heartbeats in a row do not come (a deleted push consumer simply
 *   falls silent);
 * - the subscription closes (the connection closed or drained).
 * Flow-control requests are answered, and a heartbeat that says the
 * consumer is stalled is answered as the server asks.
 */
import type { Msg, NatsConnection, Subscription } from "@nats-io/nats-core";
import type { Operation } from "./operation.js";
import { readAscii, readUtf8, startsWith, viewOf } from "../bytes.js";
import { readRaw } from "../wire/raw-reads.js";
import { readAckReply, type AckFacts } from "./ack-reply.js";

/** One message of the bucket's stream as the watch hands it on. */
export interface RawEntry {
  readonly operation: Operation;
  readonly key: string;
  readonly revision: number;
  readonly value: Uint8Array;
}

export interface DeliveryHandlers {
  /** A message in order; `pending` is what the consumer has still to deliver after it. */
  entry(entry: RawEntry, pending: number): void;
  /** The consumer will deliver nothing more; called once. */
  ended(why: string): void;
}

export interface DeliveryOptions {
  /** The consumer's deliver subject. */
  readonly subject: string;
  /** What precedes a key in the stream's subjects (`$KV.<bucket>.`). */
  readonly keyPrefix: string;
  /** The consumer's idle heartbeat, in ms (0: none is watched for). */
  readonly heartbeatMs: number;
}

export interface Delivery {
  /** Stop reading (the subscription ends; `ended` is not called). */
  stop(): void;
}

const OPERATION_HEADER = "KV-Operation";
const CONSUMER_STALLED_HEADER = "Nats-Consumer-Stalled";
const EMPTY = new Uint8Array(0);

/** The fields nats-core's messages keep their subjects in, as parsed off the wire. */
interface ParsedMsg {
  readonly _msg?: { readonly subject?: unknown; readonly reply?: unknown };
}

/**
 * A message's subject and reply subject as bytes: those the client parsed
 * where its message keeps them (nats-core 3), else its strings encoded. The
 * client's subject getters decode them with a TextDecoder, which costs more
 * than everything else done per message but the parse itself.
 */
export function subjectBytes(m: Msg): { subject: Uint8Array; reply: Uint8Array } {
  const raw = (m as unknown as ParsedMsg)._msg;
  if (raw?.subject instanceof Uint8Array && (raw.reply === undefined || raw.reply instanceof Uint8Array)) {
    return { subject: raw.subject, reply: raw.reply ?? EMPTY };
  }
  return { subject: Buffer.from(m.subject), reply: m.reply ? Buffer.from(m.reply) : EMPTY };
}

/** Bytes `from`..`to` of a subject as a string: read as latin1 where they are ASCII (keys in shape are), else as UTF-8. */
function textOf(bytes: Uint8Array, from: number, to: number): string {
  for (let i = from; i < to; i++) if ((bytes[i] as number) >= 0x80) return readUtf8(bytes, from, to);
  return readAscii(bytes, from, to);
}

function operationOf(m: Msg): Operation {
  const op = m.headers?.get(OPERATION_HEADER);
  return op === "DEL" || op === "PURGE" ? op : "PUT";
}

/**
 * What one consumer's messages mean, one message at a time: entries in
 * order, status messages answered, the end of the consumer told once. It
 * neither subscribes nor keeps time (`deliver` does), so tests can hand it
 * messages of their own.
 */
export class DeliveryReader {
  private readonly keyPrefix: Buffer;
  private lastDelivery = 0;
  private finished = false;
  private readonly facts: AckFacts = { streamSeq: 0, deliverySeq: 0, pending: 0 };
  /** Messages read so far, of any kind (the idle check's measure of life). */
  seen = 0;

  constructor(
    private readonly opts: Pick<DeliveryOptions, "subject" | "keyPrefix">,
    private readonly handlers: DeliveryHandlers,
    /** Publishes on the connection (the answer to a stalled consumer's heartbeat). */
    private readonly publish: (subject: string, data: Uint8Array) => void,
  ) {
    this.keyPrefix = Buffer.from(opts.keyPrefix);
  }

  get done(): boolean {
    return this.finished;
  }

  /** Read no more; with a reason, the handlers are told (once). */
  end(why?: string): void {
    if (this.finished) return;
    this.finished = true;
    if (why !== undefined) this.handlers.ended(why);
  }

  /** A message as the client made it. */
  read(m: Msg): void {
    this.seen++;
    if (this.finished) return;
    const { subject, reply } = subjectBytes(m);
    // Data messages come on the stream's subjects; the consumer's status messages on its deliver subject.
    if (!startsWith(subject, this.keyPrefix)) {
      if (m.subject === this.opts.subject) this.status(m);
      return;
    }
    this.data(subject, 0, subject.length, reply, 0, reply.length, operationOf(m), m.data);
  }

  /**
   * A message without headers, as positions in `buf` (see `RawReader`): a put
   * when on a stream subject (status messages always have headers).
   */
  readPlain(buf: Uint8Array, subject: number, subjectEnd: number, reply: number, replyEnd: number, data: number, dataEnd: number): void {
    this.seen++;
    if (this.finished || !startsWith(buf, this.keyPrefix, subject, subjectEnd)) return;
    this.data(buf, subject, subjectEnd, buf, reply, replyEnd, "PUT", viewOf(buf, data, dataEnd));
  }

  private data(subject: Uint8Array, from: number, to: number, reply: Uint8Array, replyFrom: number, replyTo: number, operation: Operation, value: Uint8Array): void {
    const facts = this.facts;
    if (!readAckReply(facts, reply, replyFrom, replyTo)) return this.end(`a message on ${this.opts.keyPrefix}${textOf(subject, from + this.keyPrefix.length, to)} came without a JetStream reply subject`);
    if (facts.deliverySeq !== this.lastDelivery + 1) return this.end(`delivery ${facts.deliverySeq} came after ${this.lastDelivery}: a message was missed`);
    this.lastDelivery = facts.deliverySeq;
    const entry: RawEntry = { operation, key: textOf(subject, from + this.keyPrefix.length, to), revision: facts.streamSeq, value };
    this.handlers.entry(entry, facts.pending);
  }

  private status(m: Msg): void {
    const code = m.headers?.code ?? 0;
    const description = (m.headers?.description ?? "").toLowerCase();
    if (code === 100 && description === "flowcontrol request") {
      m.respond();
      return;
    }
    if (code === 100 && description === "idle heartbeat") {
      const stalled = m.headers?.get(CONSUMER_STALLED_HEADER);
      if (stalled) this.publish(stalled, EMPTY);
      return;
    }
    if (code === 409) this.end(`the server ended the watch's consumer: ${code} ${description}`);
  }
}

/** Read a consumer's messages off its deliver subject until it ends or `stop()`. */
export function deliver(nc: NatsConnection, opts: DeliveryOptions, handlers: DeliveryHandlers): Delivery {
  let idle: ReturnType<typeof setInterval> | undefined;
  let sub: Subscription | undefined;
  let unraw: (() => void) | undefined;
  const close = (): void => {
    clearInterval(idle);
    unraw?.();
    sub?.unsubscribe();
  };
  const reader = new DeliveryReader(
    opts,
    {
      entry: handlers.entry,
      ended: (why) => {
        close();
        handlers.ended(why);
      },
    },
    (subject, data) => nc.publish(subject, data),
  );
  sub = nc.subscribe(opts.subject, {
    callback: (err, m) => {
      if (err) return reader.end(`the watch's subscription failed: ${err.message}`);
      reader.read(m);
    },
  });
  unraw = readRaw(sub, (buf, subject, subjectEnd, reply, replyEnd, data, dataEnd) => reader.readPlain(buf, subject, subjectEnd, reply, replyEnd, data, dataEnd));
  void sub.closed.then(
    () => reader.end("the watch's subscription closed"),
    (err: unknown) => reader.end(`the watch's subscription failed: ${(err as Error).message}`),
  );
  if (opts.heartbeatMs > 0) {
    // The server sends a heartbeat whenever the consumer is idle for that long: two checks in a row with nothing read are two missed.
    let seen = reader.seen;
    let missed = 0;
    idle = setInterval(() => {
      if (reader.seen !== seen) {
        seen = reader.seen;
        missed = 0;
      } else if (++missed >= 2) reader.end("the watch's consumer missed its heartbeats");
    }, opts.heartbeatMs);
    idle.unref();
  }
  return {
    stop(): void {
      reader.end();
      close();
    },
  };
}
