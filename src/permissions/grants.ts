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
 * delete, no message delete.
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
import { inboxPrefix, type Role } from "./inbox.js";
import { Failure } from "../failure.js";

export { inboxPrefix, ROLES, type Role } from "./inbox.js";

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
      allow: [`${inboxPrefix("provisioner")}.>`, ...ALL_VERB_SUBJECTS, "$SRV.*", `$SRV.*.${SERVICE_NAME}`, `$SRV.*.${SERVICE_NAME}.*`],
      deny: [],
    },
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

export function grantFor(role: Role, nodeName?: string): Grant {
  switch (role) {
    case "operator":
      return operator();
    case "provisioner":
      return provisioner();
    case "provider":
      return provider();
    case "node":
      if (nodeName === undefined || !isPlainToken(nodeName)) {
        throw new Failure("CONFIG", "--role node needs --node N, where N is a plain token (A-Z a-z 0-9 - _ / =)");
      }
      return node(nodeName);
  }
}
