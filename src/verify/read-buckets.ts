/**
 * Reading the four buckets afresh (I/O), decoded exactly as the service
 * decodes them: a new store per bucket fed by its own watch until synced.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { firstValueFrom, filter, timeout } from "rxjs";
import type { Logger } from "../log.js";
import { BUCKETS, WHATS, type What } from "mesh-provisioner-client/keys";
import { specFor } from "../projections/bucket-specs.js";
import { KNOWN_KINDS } from "../reconcile/registry.js";
import { Projection } from "../projections/projection.js";
import { watchBucket } from "../streams/kv-watch.js";
import { jetStreamAccess } from "../streams/jetstream-access.js";
import { permissionsError } from "../permissions/violation.js";
import { wrapFailure } from "../failure.js";
import { wholeAnswer } from "../verb/answer.js";
import type { Answer } from "mesh-provisioner-client";

/**
 * `inboxPrefix`: the connection's, for the watches' deliveries (a user confined to its own inboxes needs it);
 * `jsDomain`: the JetStream domain the buckets are in (from a leaf node: the hub's), the connection's own when absent.
 */
export async function readBuckets(
  nc: NatsConnection,
  log: Logger,
  opts: { readonly inboxPrefix?: string; readonly jsDomain?: string; readonly timeoutMs?: number } = {},
): Promise<Record<What, Answer>> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const projections = {} as Record<What, Projection>;
  const jetstream = jetStreamAccess(nc, { domain: opts.jsDomain, inboxPrefix: opts.inboxPrefix });
  // Asked once before the watches, which would retry a JetStream that does not answer until the timeout: it fails at once, saying what to check.
  try {
    await (await jetstream.manager()).getAccountInfo();
  } catch (err) {
    throw permissionsError(err, { inboxPrefix: opts.inboxPrefix }) ?? wrapFailure("CONNECT", jetstream.notAnswering, err);
  }
  try {
    for (const w of WHATS) {
      const p = new Projection(specFor(w, KNOWN_KINDS), log);
      p.connect(watchBucket({ nc, log, inboxPrefix: opts.inboxPrefix, jetstream }, { bucket: BUCKETS[w], fromRevision: () => p.revision, stallCheckMs: 0 }));
      projections[w] = p;
    }
    for (const w of WHATS) await firstValueFrom(projections[w].synced$.pipe(filter(Boolean), timeout(timeoutMs)));
    const answers = {} as Record<What, Answer>;
    for (const w of WHATS) answers[w] = JSON.parse(wholeAnswer(w, projections[w].store, projections.registry.store)) as Answer;
    return answers;
  } finally {
    for (const w of WHATS) projections[w]?.stop();
  }
}
