/**
 * Plain messages of chosen subscriptions, read where they lie in the
 * socket's bytes instead of as the client's message objects.
 *
 * For each message nats-core makes a message object, a view per subject,
 * reply and payload, and an event to dispatch them; a watch reading a
 * bucket of a million keys needs none of those, only where each part lies.
 * A subscription given a raw reader (`readRaw`) has each of its `MSG`s that
 * the fast path reads whole (`fast-parse.ts`) handed to that reader as
 * positions in the read, with the client's counts kept as it keeps them.
 * Everything else of that subscription still reaches its callback as
 * usual, in the order it came: an `HMSG` (headers: status messages, a KV
 * delete's marker), a message split across reads, any line the stock parser
 * reads. So a raw reader only ever sees part of its subscription's
 * messages, and its callback must read the rest the same way.
 */
import type { Subscription } from "@nats-io/nats-core";
import { ProvisionerError } from "../protocol/errors.js";

/**
 * One plain message: `buf[subject, subjectEnd)` its subject,
 * `buf[reply, replyEnd)` its reply subject (empty when it has none),
 * `buf[data, dataEnd)` its payload. `buf` is the read as the transport
 * handed it, never written again: a view of it may be kept, as the client's
 * own message objects keep theirs.
 */
export type RawReader = (buf: Uint8Array, subject: number, subjectEnd: number, reply: number, replyEnd: number, data: number, dataEnd: number) => void;

/** The fields of nats-core's protocol handler and subscriptions that a raw read keeps as its own dispatch does (nats-core 3). */
interface Dispatcher {
  inMsgs: number;
  inBytes: number;
  readonly subscriptions?: { get(sid: number): SubscriptionState | undefined };
}
interface SubscriptionState {
  received: number;
  readonly max?: number;
}

const readers = new WeakMap<object, RawReader>();
let registered = 0;

/**
 * Hand `sub`'s plain messages read whole to `reader` from now on; returns
 * what stops it (call it before or when the subscription ends). A
 * subscription with a message limit cannot have one (its limit is counted
 * by the client's own dispatch).
 */
export function readRaw(sub: Subscription, reader: RawReader): () => void {
  const state = sub as unknown as SubscriptionState;
  if (state.max !== undefined) throw new ProvisionerError("INTERNAL", "a subscription with a message limit cannot be read raw");
  if (!readers.has(sub)) registered++;
  readers.set(sub, reader);
  return () => {
    if (readers.delete(sub)) registered--;
  };
}

/**
 * The raw reader of the subscription `sid` names on this connection's
 * dispatcher, with the message (of `size` payload bytes) counted as the
 * client counts what it dispatches; undefined: dispatch it as usual.
 */
export function rawReaderFor(dispatcher: unknown, sid: number, size: number): RawReader | undefined {
  if (registered === 0) return undefined;
  const d = dispatcher as Dispatcher;
  const sub = d.subscriptions?.get(sid);
  if (sub === undefined) return undefined;
  const reader = readers.get(sub);
  if (reader === undefined) return undefined;
  d.inMsgs++;
  d.inBytes += size;
  sub.received += 1;
  return reader;
}
