/**
 * Checked when it compiles (npm run build), not when it runs: the client's
 * types accept whatever the protocol's schemas (the ones checked against the
 * service's real output) describe.
 */
import type * as Protocol from "../../src/schemas/schemas.js";
import type * as Client from "mesh-provisioner-client/protocol/messages.js";
type Accepts<To, From extends To> = [To, From];
export type ClientTypesFollowTheProtocol = [
  Accepts<Client.RegistryEntry, Protocol.RegistryEntry>,
  Accepts<Client.NeedsEntry, Protocol.NeedsEntry>,
  Accepts<Client.AppliedEntry, Protocol.AppliedEntry>,
  Accepts<Client.CollectEntry, Protocol.CollectEntry>,
  Accepts<Client.OutOfShape, Protocol.OutOfShape>,
  Accepts<Client.Page<"needs">, Protocol.Reply<"needs">>,
  Accepts<Client.FeedEvent<"collect">, Protocol.FeedEvent<"collect">>,
];
