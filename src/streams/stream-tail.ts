/**
 * Whether a stream holds any message after a sequence (I/O): the JetStream
 * API's message get with `next_by_subj`, answered by the stream's leader,
 * which returns the first message at or after `seq` on the subjects given.
 * nats.js types its `streams.getMessage` query without `next_by_subj` (only
 * its direct get, which any replica answers, lagging or not, takes it), so
 * the request is made as the API documents it, on the connection itself.
 *
 * Used to tell a projection that is at its stream's end, although the
 * stream's last sequence is past the last message it applied (the last
 * messages were deleted, purged or expired), from one that is behind.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { Failure } from "../failure.js";

const NO_MESSAGE_FOUND = 10037;

interface MsgGetReply {
  readonly message?: { readonly seq: number };
  readonly error?: { readonly code: number; readonly err_code?: number; readonly description?: string };
}

/** The sequence of the first message at or after `seq` on `subject` in `stream`, or undefined when there is none. */
export async function firstSeqFrom(
  nc: NatsConnection,
  stream: string,
  seq: number,
  subject: string,
  timeoutMs: number,
  /** The JetStream API's prefix: `$JS.API`, or a domain's `$JS.<domain>.API` (jetstream-access.ts). */
  apiPrefix = "$JS.API",
): Promise<number | undefined> {
  const msg = await nc.request(`${apiPrefix}.STREAM.MSG.GET.${stream}`, JSON.stringify({ seq, next_by_subj: subject }), { timeout: timeoutMs });
  const reply = msg.json<MsgGetReply>();
  if (reply.error !== undefined) {
    if (reply.error.err_code === NO_MESSAGE_FOUND) return undefined;
    throw new Failure("WATCH", `${stream}: message get from ${seq} failed: ${reply.error.description ?? `code ${reply.error.code}`}`);
  }
  return reply.message?.seq;
}
