/**
 * `mesh-provisioner/client`: the typed client for node clients and
 * dashboards. See docs/protocol.md for what each field means.
 *
 *   import { connect } from "@nats-io/transport-node";
 *   import { ProvisionerClient, needsKey } from "mesh-provisioner/client";
 *   const client = new ProvisionerClient(await connect({ servers }));
 *   const { entries } = await client.get({ what: "needs", node: "n1" });
 *   client.watch({ what: "needs", node: "n1" }).subscribe((view) => …);
 */
export { ProvisionerClient, decodeReply, type ClientOptions } from "./client.js";
export { VerbError } from "./errors.js";
export { needsKey, appliedKey, collectKey, encodeCollection, decodeCollection } from "./keys.js";
export type { WatchOptions } from "./watch.js";
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
} from "../protocol/messages.js";
export { VERB_SUBJECT, FEED_PREFIX } from "../protocol/subjects.js";
