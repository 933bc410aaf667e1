/**
 * The live feed (I/O): while this instance holds the seat, every change a
 * projection applies after its first sync is published on
 * `mesh-provisioner.feed.<what>.<key>`. Standbys publish nothing. The seat's
 * own bucket has no feed.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { merge, map, type Subscription } from "rxjs";
import type { Logger } from "../log.js";
import { answeredChecks, type What } from "mesh-provisioner-client/keys";
import type { Projection } from "../projections/projection.js";
import { feedEventBytes } from "./events.js";
import { feedSubject } from "mesh-provisioner-client/protocol/subjects.js";

export interface FeedOptions {
  readonly nc: NatsConnection;
  readonly projections: Readonly<Record<What, Projection>>;
  readonly isHolder: () => boolean;
  readonly log: Logger;
}

export function startFeed(opts: FeedOptions): Subscription {
  const { nc, projections, isHolder, log } = opts;
  const checks = answeredChecks(projections.registry.store);
  let published = 0;
  const sub = merge(
    ...(Object.entries(projections) as [What, Projection][]).map(([what, p]) => p.changes$.pipe(map((change) => ({ what, change })))),
  ).subscribe(({ what, change }) => {
    if (!isHolder()) return;
    try {
      nc.publish(feedSubject(what, change.key), feedEventBytes(what, change, checks[what]));
      published++;
    } catch (err) {
      log.warn({ what, key: change.key, err: (err as Error).message }, "a feed event could not be published");
    }
  });
  sub.add(() => log.debug({ published }, "feed stopped"));
  return sub;
}
