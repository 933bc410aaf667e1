/**
 * The messages of one ordered push consumer, read straight off its deliver
 * subject (I/O). This is what nats.js's ordered push consumer does, less
 * what the watch does itself (it makes a new consumer from the revision it
 * applied whenever this one ends) and less its JetStream message objects:
 * each message is read through the client's public message API, its key
 * from its subject (after the bucket's prefix) and its stream sequence,
 * delivery sequence and pending count from its reply subject in one pass
 * (`ack-reply.ts`), and handed on as a raw entry.
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
  /** An idle heartbeat came: the stream's server is reachable, with nothing to deliver. */
  heartbeat?(): void;
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
  ) {}

  get done(): boolean {
    return this.finished;
  }

  /** Read no more; with a reason, the handlers are told (once). */
  end(why?: string): void {
    if (this.finished) return;
    this.finished = true;
    if (why !== undefined) this.handlers.ended(why);
  }

  /** A message as the client hands it over. */
  read(m: Msg): void {
    this.seen++;
    if (this.finished) return;
    const subject = m.subject;
    const prefix = this.opts.keyPrefix;
    // Data messages come on the stream's subjects; the consumer's status messages on its deliver subject.
    if (!subject.startsWith(prefix)) {
      if (subject === this.opts.subject) this.status(m);
      return;
    }
    const facts = this.facts;
    if (!readAckReply(facts, m.reply ?? "")) return this.end(`a message on ${subject} came without a JetStream reply subject`);
    if (facts.deliverySeq !== this.lastDelivery + 1) return this.end(`delivery ${facts.deliverySeq} came after ${this.lastDelivery}: a message was missed`);
    this.lastDelivery = facts.deliverySeq;
    const entry: RawEntry = { operation: operationOf(m), key: subject.substring(prefix.length), revision: facts.streamSeq, value: m.data };
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
      this.handlers.heartbeat?.();
      return;
    }
    if (code === 409) this.end(`the server ended the watch's consumer: ${code} ${description}`);
  }
}

/** Read a consumer's messages off its deliver subject until it ends or `stop()`. */
export function deliver(nc: NatsConnection, opts: DeliveryOptions, handlers: DeliveryHandlers): Delivery {
  let idle: ReturnType<typeof setInterval> | undefined;
  let sub: Subscription | undefined;
  const close = (): void => {
    clearInterval(idle);
    sub?.unsubscribe();
  };
  const reader = new DeliveryReader(
    opts,
    {
      entry: handlers.entry,
      heartbeat: handlers.heartbeat,
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
