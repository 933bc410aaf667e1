/**
 * The subjects of the protocol (pure): the verb's (one per scope, see
 * scope.ts), the micro service's name
 * that `$SRV.*` addresses, and the feed's. docs/protocol.md names each; a
 * grant, the client and the service all read them from here so they cannot
 * drift apart.
 */

/** The micro service's name: `$SRV.PING|INFO|STATS.<name>` address every instance. */
export const SERVICE_NAME = "mesh-provisioner";

/** The verb over the whole mesh: a request here is answered by one instance of the queue group. */
export const VERB_SUBJECT = "mesh-provisioner.provisioning";

/** The verb for one node: `<VERB_SUBJECT>.<node>` answers the registry and that node's entries only. */
export function nodeVerbSubject(node: string): string {
  return `${VERB_SUBJECT}.${node}`;
}

/** Every node's verb subject: what the service subscribes to. */
export const NODE_VERB_SUBJECTS = nodeVerbSubject("*");

/** The verb for providers: the registry and every node's needs, nothing of applied or collect. */
export const NEEDS_VERB_SUBJECT = "mesh-provisioner.provisioning-needs";

/** Every instance stands in this queue group, so each request is answered once. */
export const QUEUE_GROUP = "mesh-provisioner";

/** Every instance's `$SRV.STATS` reply (the seat, the projections' revisions) on one request. */
export const STATS_SUBJECT = `$SRV.STATS.${SERVICE_NAME}`;

/** The feed: `<prefix>.<what>.<key>` carries each change a projection applied. */
export const FEED_PREFIX = "mesh-provisioner.feed";

/** The subject a change of `key` in the bucket of `what` is published on. */
export function feedSubject(what: string, key: string): string {
  return `${FEED_PREFIX}.${what}.${key}`;
}

/** Every change of the bucket of `what`. */
export function bucketFeedSubject(what: string): string {
  return feedSubject(what, ">");
}

/**
 * The changes of one node's keys in the bucket of `what`: its keys, and a
 * key of one token that is the node's name (out of shape, but readable as
 * its node). What a node's grant allows and what its client subscribes to.
 */
export function nodeFeedSubjects(what: string, node: string): string[] {
  return [feedSubject(what, `${node}.>`), feedSubject(what, node)];
}
