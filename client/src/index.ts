/**
 * `mesh-provisioner-client`: the typed client for node clients and
 * dashboards. See docs/protocol.md for what each field means.
 *
 *   import { connect } from "@nats-io/transport-node";
 *   import { ProvisionerClient, needsKey } from "mesh-provisioner-client";
 *   const client = new ProvisionerClient(await connect({ servers }));
 *   const { entries } = await client.get({ what: "needs", node: "n1" });
 *   client.watch({ what: "needs", node: "n1" }).subscribe((view) => …);
 *
 * A node connects with its grant (`permissions --role node --node n1`) and
 * the inbox prefix that grant allows, and says so to the client, which then
 * asks on the node's own verb subject:
 *
 *   const nc = await connect({ servers, user, pass, inboxPrefix: inboxPrefix("node", "n1") });
 *   const n1 = new ProvisionerClient(nc, { scope: { node: "n1" } });
 *   const { entries } = await n1.get({ what: "needs" });   // n1's needs
 *
 * An answer, a view and a VerbError carry `stale` ({ since, silentMs,
 * revision }) when the instance that answered had heard nothing from its
 * bucket's stream for longer than its `--stale-after` (a site cut off from
 * its hub): the entries are the bucket's at that revision, maybe not now.
 */
export { ProvisionerClient, decodeReply, type ClientOptions, type ClientScope } from "./client.js";
export { ClientError, NoAnswerError, VerbError } from "./errors.js";
export { ProvisionerError, ErrorCodes } from "./protocol/errors.js";
export { inboxPrefix } from "./protocol/inbox.js";
export { needsKey, appliedKey, collectKey, encodeCollection, decodeCollection } from "./keys.js";
export type { WatchOptions } from "./watch.js";
export { Observable, type Observer, type Subscription } from "./observable.js";
export { instances, furthestApplied } from "./instances.js";
export type {
  What,
  RegistryEntry,
  NeedsEntry,
  AppliedEntry,
  CollectEntry,
  EntryOf,
  AnyEntry,
  OutOfShape,
  FiltersOf,
  ProvisionerRequest,
  Page,
  Answer,
  FeedEvent,
  View,
} from "./protocol/messages.js";
export type { Staleness } from "./protocol/staleness.js";
export { VERB_SUBJECT, NEEDS_VERB_SUBJECT, nodeVerbSubject, FEED_PREFIX } from "./protocol/subjects.js";
