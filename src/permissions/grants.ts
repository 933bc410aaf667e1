/**
 * The least grant of each role, in the form a nats-server configuration takes
 * (pure). Subjects are those the NATS v3 client uses against nats-server 2.9:
 *
 * - KV put / delete: a publish on `$KV.<bucket>.<key>` (the PubAck comes back
 *   to the client's inbox);
 * - KV get: direct get `$JS.API.DIRECT.GET.<stream>.<subject>` (the key is in
 *   the subject) or message get `$JS.API.STREAM.MSG.GET.<stream>` (the key is
 *   in the body, so it cannot be narrowed by subject);
 * - KV watch: an ordered consumer, created on
 *   `$JS.API.CONSUMER.CREATE.<stream>.<name>[.<filter>]`, read with
 *   `CONSUMER.INFO`, removed with `CONSUMER.DELETE`, its flow control answered
 *   on `$JS.FC.<stream>.>`, its messages delivered to the client's inbox.
 *
 * Every role gets its own inbox prefix (./inbox.ts), so replies and watch
 * deliveries stay inside a subject space nobody else may subscribe to; `serve`
 * and the commands use their role's prefix unless told otherwise. No role gets
 * `$JS.API.>` wholesale, and every role is denied stream delete, message
 * delete and the purge of the buckets' streams (nodes and providers any
 * purge; the service purges the checkpoints' object store alone, which
 * replaces an object that way); only the service may update streams, and
 * only its five buckets' (to set the limits and the roll-up refusal it
 * creates them with). Nodes and providers get nothing of the checkpoints.
 *
 * The operator's grant (`query`, `dump` and `verify`, and a person with the
 * nats CLI) reads everything and writes nothing: every verb subject, the
 * five buckets and the checkpoints read (get, watch, stream info), no
 * publish on `$KV.>`, `$O.>` or the feed, no stream create, update, purge or
 * delete, no message delete. The site's grant (an instance run with
 * `serve --no-seat` at a site) reads what the operator's does and answers
 * the verb, and writes nothing either.
 *
 * With a JetStream domain (`permissions --js-domain <d>`, for a client whose
 * buckets are in another domain, such as a node at a site's leaf server
 * reaching the hub's) every JetStream request goes to `$JS.<d>.API.…` instead
 * of `$JS.API.…`: direct get `$JS.<d>.API.DIRECT.GET.<stream>.<subject>`,
 * message get `$JS.<d>.API.STREAM.MSG.GET.<stream>`, a watch's consumer
 * `$JS.<d>.API.CONSUMER.CREATE.<stream>.<name>[.<filter>]` (nats.js
 * `jetstream(nc, { domain })` and nats.go `jetstream.NewWithDomain` both form
 * them so), and a KV put or delete goes behind the same prefix,
 * `$JS.<d>.API.$KV.<bucket>.<key>`, which the domain's servers map back to the
 * bucket's subject: a plain `$KV.…` publish from a leaf server finds no
 * stream. Flow control (`$JS.FC.…`) and inboxes carry no domain. The object
 * store's chunks are published on `$O.…` as they are (nats.js adds no
 * prefix), so checkpoints are written only where the buckets' JetStream is
 * the connection's own. Denials are kept in both spellings.
 */
import { BUCKETS, CHECKPOINT_BUCKET, isPlainToken, objectStreamName, SEAT_BUCKET, streamName } from "mesh-provisioner-client/keys";
import {
  bucketFeedSubject,
  FEED_PREFIX,
  NEEDS_VERB_SUBJECT,
  nodeFeedSubjects,
  nodeVerbSubject,
  NODE_VERB_SUBJECTS,
  VERB_SUBJECT,
  SERVICE_NAME,
} from "mesh-provisioner-client/protocol/subjects.js";
import { COMMAND_ROLE, inboxPrefix, SERVE_ROLE, type GrantRole } from "./inbox.js";
import { Failure } from "../failure.js";

export { GRANT_ROLES, inboxPrefix, ROLES, type GrantRole, type Role } from "./inbox.js";

export interface GrantOptions {
  /** The JetStream domain of the buckets, as the grant's user reaches them (`$JS.<d>.API`); absent: the connection's own. */
  readonly jsDomain?: string;
  /** For `leaf`: the nodes at the site (at least one). */
  readonly nodes?: readonly string[];
}

export interface Grant {
  publish: { allow: string[]; deny: string[] };
  subscribe: { allow: string[]; deny: string[] };
  allow_responses: boolean | { max: number; expires: string };
}

const API = "$JS.API";
const NODE_BUCKETS = [BUCKETS.needs, BUCKETS.applied, BUCKETS.collect] as const;
const NODE_BUCKETS_WHATS = ["needs", "applied", "collect"] as const;

/** The streams of the service's five KV buckets. */
const KV_STREAMS = [BUCKETS.registry, ...NODE_BUCKETS, SEAT_BUCKET].map(streamName);
const CHECKPOINT_STREAM = objectStreamName(CHECKPOINT_BUCKET);

/** Denied to every role, whatever else it may do. */
export const ALWAYS_DENIED: readonly string[] = [
  ...KV_STREAMS.map((s) => `${API}.STREAM.PURGE.${s}`),
  `${API}.STREAM.DELETE.>`,
  `${API}.STREAM.MSG.DELETE.>`,
  `${API}.CONSUMER.DURABLE.CREATE.>`,
];

/**
 * Denied to every role but the service, which purges the checkpoints' stream
 * alone: the object store replaces a checkpoint by purging its old chunks.
 */
export const PURGE_DENIED = `${API}.STREAM.PURGE.>`;

/** Reading a bucket: get by either route the client uses, and watching it. */
function readBucket(bucket: string): string[] {
  return readStream(streamName(bucket));
}

/** Reading a stream: its info, get by either route, and an ordered consumer (a watch, an object's chunks). */
function readStream(s: string): string[] {
  return [
    `${API}.STREAM.INFO.${s}`,
    `${API}.DIRECT.GET.${s}`,
    `${API}.DIRECT.GET.${s}.>`,
    `${API}.STREAM.MSG.GET.${s}`,
    `${API}.CONSUMER.CREATE.${s}`,
    `${API}.CONSUMER.CREATE.${s}.>`,
    `${API}.CONSUMER.INFO.${s}.*`,
    `${API}.CONSUMER.DELETE.${s}.*`,
    `$JS.FC.${s}.>`,
  ];
}

/**
 * The checkpoints' object store: create it, put objects (chunks and their
 * meta on `$O.<bucket>.>`, the old chunks purged), read them (meta by
 * message or direct get, chunks through an ordered consumer).
 */
function checkpointStore(): string[] {
  const s = CHECKPOINT_STREAM;
  return [
    `${API}.STREAM.CREATE.${s}`,
    `${API}.STREAM.INFO.${s}`,
    `${API}.STREAM.PURGE.${s}`,
    `${API}.STREAM.MSG.GET.${s}`,
    `${API}.DIRECT.GET.${s}`,
    `${API}.DIRECT.GET.${s}.>`,
    `${API}.CONSUMER.CREATE.${s}`,
    `${API}.CONSUMER.CREATE.${s}.>`,
    `${API}.CONSUMER.INFO.${s}.*`,
    `${API}.CONSUMER.DELETE.${s}.*`,
    `$JS.FC.${s}.>`,
    `$O.${CHECKPOINT_BUCKET}.>`,
  ];
}

/**
 * Asking the verb on `subjects` (request/reply; the reply comes to the
 * caller's inbox), and the micro service's discovery (`$SRV` answers say
 * what the service is and counts, never an entry).
 */
const askVerb = (...subjects: string[]): string[] => [...subjects, `$SRV.*.${SERVICE_NAME}`, `$SRV.*.${SERVICE_NAME}.*`];

/** Every verb subject: the service answers them all, and the operator's grant asks them all. */
const ALL_VERB_SUBJECTS = [VERB_SUBJECT, NODE_VERB_SUBJECTS, NEEDS_VERB_SUBJECT];

/** What an instance subscribes to in order to answer: every verb subject, and the micro service's discovery. */
const ANSWER_VERB = [...ALL_VERB_SUBJECTS, "$SRV.*", `$SRV.*.${SERVICE_NAME}`, `$SRV.*.${SERVICE_NAME}.*`];

function provisioner(): Grant {
  const own = [BUCKETS.registry, SEAT_BUCKET];
  const all = [BUCKETS.registry, ...NODE_BUCKETS, SEAT_BUCKET];
  return {
    publish: {
      allow: [
        `${API}.INFO`,
        ...all.map((b) => `${API}.STREAM.CREATE.${streamName(b)}`),
        // Only to bring a bucket an earlier deployment made to the service's settings: the size limits set where they
        // are missing or lower (never lowered), and roll-up headers refused on a node bucket found allowing them.
        ...all.map((b) => `${API}.STREAM.UPDATE.${streamName(b)}`),
        ...all.flatMap(readBucket),
        ...own.map((b) => `$KV.${b}.>`),
        ...checkpointStore(),
        `${FEED_PREFIX}.>`,
        ...askVerb(...ALL_VERB_SUBJECTS),
      ],
      deny: [...ALWAYS_DENIED, ...NODE_BUCKETS.map((b) => `$KV.${b}.>`)],
    },
    subscribe: {
      allow: [
        `${inboxPrefix("provisioner")}.>`,
        // The operator's too: an operator may run query, dump and verify (whose default prefix is the operator's) with the
        // service's credentials, and this grant already reads everything, so it learns nothing new there.
        `${inboxPrefix(COMMAND_ROLE)}.>`,
        ...ANSWER_VERB,
      ],
      deny: [],
    },
    allow_responses: true,
  };
}

/**
 * An instance at a site (`serve --no-seat`): it reads the five buckets and
 * the checkpoints, answers the verb in the queue group (`$SRV` included),
 * and writes nothing: no KV put, no object, no feed event, no stream created
 * or updated. Its replies go to its `serve`'s prefix, and the commands'
 * (query, dump and verify run at a site under this grant) to the operator's.
 */
function site(): Grant {
  return {
    // It reads what the operator reads, and publishes nothing more.
    publish: operator().publish,
    subscribe: { allow: [`${inboxPrefix(SERVE_ROLE)}.>`, `${inboxPrefix(COMMAND_ROLE)}.>`, ...ANSWER_VERB], deny: [] },
    allow_responses: true,
  };
}

function node(n: string): Grant {
  return {
    publish: {
      allow: [
        `${API}.INFO`,
        // Writes only: no STREAM.INFO of a node bucket, whose `subjects_filter` would list every node's keys.
        ...NODE_BUCKETS.map((b) => `$KV.${b}.${n}.>`),
        ...readBucket(BUCKETS.registry),
        // Its own verb subject alone: the service answers there the registry and this node's entries only.
        ...askVerb(nodeVerbSubject(n)),
      ],
      deny: [...ALWAYS_DENIED, PURGE_DENIED, `${API}.STREAM.UPDATE.>`, `${API}.STREAM.CREATE.>`, `$KV.${BUCKETS.registry}.>`],
    },
    // Its own keys' feed events and the registry's, so that a client's watch of them stays current.
    subscribe: {
      allow: [`${inboxPrefix("node", n)}.>`, ...NODE_BUCKETS_WHATS.flatMap((w) => nodeFeedSubjects(w, n)), bucketFeedSubject("registry")],
      deny: [],
    },
    allow_responses: false,
  };
}

function provider(): Grant {
  return {
    publish: {
      allow: [`${API}.INFO`, ...readBucket(BUCKETS.needs), ...askVerb(NEEDS_VERB_SUBJECT)],
      deny: [...ALWAYS_DENIED, PURGE_DENIED, `${API}.STREAM.UPDATE.>`, `${API}.STREAM.CREATE.>`, "$KV.>"],
    },
    subscribe: { allow: [`${inboxPrefix("provider")}.>`, bucketFeedSubject("needs"), bucketFeedSubject("registry")], deny: [] },
    allow_responses: false,
  };
}

/**
 * Reads everything, writes nothing. Its consumers are the ephemeral ordered
 * consumers of its own reads; deleting one is a stream's consumer API, which
 * the grant cannot narrow to its own consumers (docs/security.md).
 */
function operator(): Grant {
  return {
    publish: {
      allow: [
        `${API}.INFO`,
        ...[BUCKETS.registry, ...NODE_BUCKETS, SEAT_BUCKET].flatMap(readBucket),
        ...readStream(CHECKPOINT_STREAM),
        ...askVerb(...ALL_VERB_SUBJECTS),
      ],
      deny: [...ALWAYS_DENIED, PURGE_DENIED, `${API}.STREAM.UPDATE.>`, `${API}.STREAM.CREATE.>`, "$KV.>", "$O.>", `${FEED_PREFIX}.>`],
    },
    // Its replies and watch deliveries, and every feed event (a live view of the whole mesh).
    subscribe: { allow: [`${inboxPrefix("operator")}.>`, `${FEED_PREFIX}.>`], deny: [] },
    allow_responses: false,
  };
}

/**
 * The hub-side user a site's leaf server authenticates its remote as.
 *
 * Invariant (nats-server 2.9.10 and 2.15.3 alike, tested in
 * test/integration/site-grants.test.ts): a leaf connection's grant reads as
 * a client's does from the hub's side. `publish` is what the leaf server may
 * send into the hub (its local users' requests, JetStream API calls and KV
 * writes, checked as the leaf sends them, `$JS.<domain>.API.…` before the hub
 * maps its domain); `subscribe` is what the hub delivers to the leaf (the
 * replies, watch deliveries and feed events its local users receive). So
 * this grant is the union of what the site's local users (its nodes and its
 * instance) send into the hub and receive from it, and never wider than the
 * union: whatever the leaf server's local grants let through, the hub lets
 * no more in or out.
 *
 * The nodes are named one by one, because a node's inbox prefix is one token
 * (`_INBOX_mesh-node_<node>`) that no wildcard narrows; naming them also
 * confines the site's KV writes to its own nodes' keys. The site's instance
 * answers its own site's nodes: the hub does not deliver the verb's requests
 * to it, so the hub's nodes stay answered by the hub's instances.
 */
function leaf(siteInstance: Grant, nodes: readonly Grant[]): Grant {
  const locals = [siteInstance, ...nodes];
  const union = (pick: (g: Grant) => readonly string[], keep: (s: string) => boolean = () => true): string[] => [...new Set(locals.flatMap(pick).filter(keep))];
  const answering = new Set(ANSWER_VERB);
  return {
    publish: {
      allow: union((g) => g.publish.allow),
      deny: [
        ...ALWAYS_DENIED,
        PURGE_DENIED,
        `${API}.STREAM.UPDATE.>`,
        `${API}.STREAM.CREATE.>`,
        `$KV.${BUCKETS.registry}.>`,
        `$KV.${SEAT_BUCKET}.>`,
        "$O.>",
        `${FEED_PREFIX}.>`,
      ],
    },
    subscribe: {
      allow: union(
        (g) => g.subscribe.allow,
        (s) => !answering.has(s),
      ),
      deny: [],
    },
    allow_responses: false,
  };
}

/** A plain token, or a CONFIG failure naming the flag. */
function nodeToken(n: string | undefined, role: GrantRole): string {
  if (n === undefined || !isPlainToken(n)) {
    throw new Failure("CONFIG", `--role ${role} needs --node N, where N is a plain token (A-Z a-z 0-9 - _ / =)`);
  }
  return n;
}

export function grantFor(role: GrantRole, nodeName?: string, opts: GrantOptions = {}): Grant {
  const grant = plainGrant(role, nodeName, opts);
  return opts.jsDomain === undefined ? grant : inDomain(grant, opts.jsDomain);
}

function plainGrant(role: GrantRole, nodeName: string | undefined, opts: GrantOptions): Grant {
  switch (role) {
    case "operator":
      return operator();
    case "provisioner":
      return provisioner();
    case "provider":
      return provider();
    case "site":
      return site();
    case "node":
      return node(nodeToken(nodeName, role));
    case "leaf": {
      const nodes = opts.nodes ?? (nodeName === undefined ? [] : [nodeName]);
      if (nodes.length === 0) {
        throw new Failure(
          "CONFIG",
          "--role leaf needs --node N for each node at the site (repeat it): a node's inbox prefix is one token, which no wildcard narrows",
        );
      }
      return leaf(
        site(),
        nodes.map((n) => node(nodeToken(n, role))),
      );
    }
  }
}

const DOMAINLESS_KV = "$KV.";

/**
 * The same grant as its user reaches the buckets through JetStream domain `d`:
 * each allowed JetStream API subject under `$JS.<d>.API`, each KV write
 * behind it; the denials in both spellings, so that none is lost whichever
 * JetStream the user's server answers `$JS.API` with.
 */
export function inDomain(g: Grant, d: string): Grant {
  const prefix = `$JS.${d}.API`;
  const move = (s: string): string => (s.startsWith(`${API}.`) ? `${prefix}${s.slice(API.length)}` : s.startsWith(DOMAINLESS_KV) ? `${prefix}.${s}` : s);
  const moved = (list: readonly string[]): string[] => [...new Set(list.map(move))];
  return {
    publish: { allow: moved(g.publish.allow), deny: [...new Set([...g.publish.deny, ...moved(g.publish.deny)])] },
    subscribe: { allow: [...g.subscribe.allow], deny: [...g.subscribe.deny] },
    allow_responses: g.allow_responses,
  };
}
