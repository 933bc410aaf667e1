/**
 * Whether another instance answers the verb, or may (I/O): one small
 * registry request on the mesh's subject, asked before this instance joins
 * the queue group.
 *
 * The queue group hands a request to any member, synced or not, and a member
 * still making its first sync can only answer 503. An instance that finds a
 * peer answering (or one subscribed but slow to answer: the request timed
 * out rather than found no responders) joins once its own projections have
 * synced, so a node asking while an instance starts (a rolling upgrade, a
 * restart) is answered by a synced instance rather than told 503. One that
 * finds none (no responders, only peers answering 503, a grant that does not
 * allow asking) joins at once and answers 503 until it has synced, as a lone
 * instance must.
 */
import { TimeoutError, type NatsConnection } from "@nats-io/nats-core";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";

/** How long a peer's answer is waited for: an instance answering from its projections answers in milliseconds. */
export const PEER_ANSWER_MS = 1000;

export async function aPeerAnswers(nc: Pick<NatsConnection, "request">, timeoutMs = PEER_ANSWER_MS): Promise<boolean> {
  try {
    const m = await nc.request(VERB_SUBJECT, JSON.stringify({ what: "registry", limit: 1 }), { timeout: timeoutMs });
    return (m.headers?.get("Nats-Service-Error-Code") ?? "") === "";
  } catch (err) {
    return err instanceof TimeoutError;
  }
}
