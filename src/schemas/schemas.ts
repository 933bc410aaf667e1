/**
 * The protocol's messages as zod schemas: the verb's request (the very schema
 * the service validates with), its reply for each `what`, its error body, and
 * a feed event. `npm run schemas` writes them out as JSON Schemas (schemas/);
 * a unit test holds those files, and these schemas, to what the service sends.
 *
 * zod is loaded on first use, as the request's schema is (see request-schema.ts):
 * importing this file for its types costs nothing at run time.
 *
 * The reply's and the feed's objects accept fields they do not know, so a
 * client validating with them keeps working when a later service adds an
 * optional field; `.parse` drops such fields from what it returns.
 */
import { createRequire } from "node:module";
import type * as Zod from "zod";
import { TOKEN_RE } from "mesh-provisioner-client/protocol/token.js";
import type { What } from "mesh-provisioner-client/protocol/what.js";
import { requestSchema } from "./request-schema.js";

export type { What } from "mesh-provisioner-client/protocol/what.js";

/** A plain token's characters, as a pattern to repeat inside a key's. */
const TOKEN = TOKEN_RE.source.replace(/^\^/, "").replace(/\$$/, "");
/** A key of `n` plain tokens joined by dots. */
const keyOf = (n: number): RegExp => new RegExp(`^${TOKEN}${`\\.${TOKEN}`.repeat(n - 1)}$`);

function build() {
  const { z } = createRequire(import.meta.url)("zod") as typeof Zod;

  const token = (what: string) =>
    z
      .string()
      .regex(TOKEN_RE)
      .meta({ description: `${what} (a plain token)` });
  const key = (tokens: number, shape: string) =>
    z
      .string()
      .regex(keyOf(tokens))
      .meta({ description: `the key as stored: ${shape}` });
  const count = () => z.number().int().min(0);
  const entryRevision = z.number().int().min(1).meta({ description: "the revision (stream sequence) of the write that put this value" });
  const value = z.unknown().meta({
    description: "the value: parsed JSON when the stored bytes are JSON in UTF-8, otherwise the stored text as a string",
  });
  const tooLarge = {
    valueTooLarge: z.literal(true).meta({ description: "the value alone does not fit in a reply on this connection: it is left out" }),
    valueBytes: count().meta({ description: "the size of the value in the entry's JSON, in bytes" }),
  };

  // Each bucket's entry: its key, the fields read from the key, the value and its revision.
  const needsFields = {
    key: key(4, "<node>.<module>.<kind>.<name>"),
    node: token("the node"),
    module: token("the module"),
    kind: token("the kind of placeholder"),
    name: token("the placeholder's name"),
  };
  const needsEntry = z
    .object({
      ...needsFields,
      value,
      revision: entryRevision,
      answered: z.literal(false).optional().meta({ description: "present, and false, when the registry has no entry for `kind`" }),
    })
    .meta({ id: "NeedsEntry" });
  const needsTooLarge = z.object({ ...needsFields, revision: entryRevision, ...tooLarge }).meta({ id: "NeedsEntryTooLarge" });

  const appliedFields = { key: key(2, "<node>.<module>"), node: token("the node"), module: token("the module") };
  const appliedEntry = z.object({ ...appliedFields, value, revision: entryRevision }).meta({ id: "AppliedEntry" });
  const appliedTooLarge = z.object({ ...appliedFields, revision: entryRevision, ...tooLarge }).meta({ id: "AppliedEntryTooLarge" });

  const collectFields = {
    key: key(3, "<node>.<collection>.<contributor>, the collection =hex escaped"),
    node: token("the node"),
    collection: z.string().min(1).meta({ description: "the collection's name, decoded from its =hex escaped token" }),
    contributor: token("the contributor"),
  };
  const collectEntry = z.object({ ...collectFields, value, revision: entryRevision }).meta({ id: "CollectEntry" });
  const collectTooLarge = z.object({ ...collectFields, revision: entryRevision, ...tooLarge }).meta({ id: "CollectEntryTooLarge" });

  // A registry entry is the registry value itself, with the whole value and its revision beside its fields.
  const registryValue = z
    .looseObject({
      kind: token("the kind of placeholder; its key in the bucket"),
      module: z.string().meta({ description: "the module (domain) that answers this kind" }),
      bucket: z.string().optional().meta({ description: "the bucket where a client finds the values" }),
      key: z.string().optional().meta({ description: "the shape of that bucket's keys, e.g. <node>.<module>.<name>" }),
      verb: z.string().optional().meta({ description: "the subject to ask on request/reply, where the values are in no bucket" }),
      collection: z.string().optional().meta({ description: "the collection of the same name, for kinds read as a collection" }),
    })
    .meta({ id: "RegistryValue" });
  const registryEntry = registryValue
    .extend({
      value: z.record(z.string(), z.unknown()).meta({ description: "the whole value as stored (a JSON object)" }),
      revision: entryRevision,
    })
    .meta({ id: "RegistryEntry" });
  const registryTooLarge = z
    .object({ key: token("the kind: the key in the bucket"), kind: token("the kind"), revision: entryRevision, ...tooLarge })
    .meta({ id: "RegistryEntryTooLarge" });

  const outOfShape = z
    .object({
      key: z.string().meta({ description: "the key as stored" }),
      reason: z.string().meta({ description: "why it is out of its bucket's shape, for a person to act on" }),
    })
    .meta({ id: "OutOfShape" });

  const stale = z
    .object({
      since: z.string().meta({ description: "the last moment the projection heard from its bucket's stream: ISO 8601, UTC, milliseconds" }),
      silentMs: count().meta({ description: "how long before this reply that was, in milliseconds, on the answering instance's own clock" }),
      revision: count().meta({ description: "the revision the projection holds" }),
    })
    .meta({
      id: "Staleness",
      description:
        "present only when the asked bucket's projection has heard nothing from its stream for longer than the instance's --stale-after: the answer may be behind the bucket",
    });

  const replyOf = <W extends What, E extends Zod.ZodType>(what: W, entry: E) =>
    z
      .object({
        what: z.literal(what),
        revision: count().meta({ description: "the bucket's stream sequence the projection had applied when it answered" }),
        stale: stale.optional(),
        entries: z.array(entry).meta({ description: "entries in key order, strictly after `after`" }),
        outOfShape: z.array(outOfShape).meta({ description: "keys out of shape in this page's key range, in key order" }),
        next: z.string().optional().meta({ description: "present when more remains: the last key this page covers; ask again with after: next" }),
      })
      .meta({ title: `Reply (${what})` });

  const registryReply = replyOf("registry", z.union([registryEntry, registryTooLarge]));
  const needsReply = replyOf("needs", z.union([needsEntry, needsTooLarge]));
  const appliedReply = replyOf("applied", z.union([appliedEntry, appliedTooLarge]));
  const collectReply = replyOf("collect", z.union([collectEntry, collectTooLarge]));
  const reply = z
    .discriminatedUnion("what", [registryReply, needsReply, appliedReply, collectReply])
    .meta({ title: "Reply", description: "the verb's answer: one page of one bucket" });

  const errorReply = z
    .object({
      error: z.object({
        code: z.number().int().meta({ description: "the status, also in the Nats-Service-Error-Code header: 400, 503, 504 or 500" }),
        message: z.string().meta({ description: "what is wrong, for a person to act on; also in the Nats-Service-Error header" }),
      }),
      stale: stale.optional(),
    })
    .meta({ id: "ErrorReply" });

  // A feed event: a put of an entry, a put of a key out of shape, or a delete.
  const feedOf = <W extends What, E extends Zod.ZodType>(what: W, entry: E) => {
    const head = {
      what: z.literal(what),
      key: z.string().meta({ description: "the key as stored (also the subject's last tokens)" }),
      revision: entryRevision.meta({ description: "the revision (stream sequence) of the change" }),
    };
    return z.union([
      z.object({ ...head, op: z.literal("put"), entry }).meta({ title: `FeedPut (${what})` }),
      z.object({ ...head, op: z.literal("put"), outOfShape }).meta({ title: `FeedPutOutOfShape (${what})` }),
      z.object({ ...head, op: z.literal("delete") }).meta({ title: `FeedDelete (${what})` }),
    ]);
  };
  const registryFeed = feedOf("registry", registryEntry);
  const needsFeed = feedOf("needs", needsEntry);
  const appliedFeed = feedOf("applied", appliedEntry);
  const collectFeed = feedOf("collect", collectEntry);
  const feedEvent = z
    .union([registryFeed, needsFeed, appliedFeed, collectFeed])
    .meta({ title: "FeedEvent", description: "one change a projection applied, published on mesh-provisioner.feed.<what>.<key>" });

  return {
    request: requestSchema(),
    reply,
    replies: { registry: registryReply, needs: needsReply, applied: appliedReply, collect: collectReply },
    entries: { registry: registryEntry, needs: needsEntry, applied: appliedEntry, collect: collectEntry },
    tooLarge: { registry: registryTooLarge, needs: needsTooLarge, applied: appliedTooLarge, collect: collectTooLarge },
    registryValue,
    outOfShape,
    stale,
    errorReply,
    feedEvent,
    feedEvents: { registry: registryFeed, needs: needsFeed, applied: appliedFeed, collect: collectFeed },
  };
}

export type ProtocolSchemas = ReturnType<typeof build>;

let built: ProtocolSchemas | undefined;

/** The protocol's zod schemas, built (and zod loaded) on first use. */
export function protocolSchemas(): ProtocolSchemas {
  return (built ??= build());
}

type Out<S extends Zod.ZodType> = Zod.output<S>;

/** A request body as sent to the verb (an empty body means `{}`, the registry). */
export type VerbRequestBody = Zod.input<ProtocolSchemas["request"]>;

/** A registry value as the compiled table writes it. */
export type RegistryValue = Out<ProtocolSchemas["registryValue"]>;
export type RegistryEntry = Out<ProtocolSchemas["entries"]["registry"]>;
export type NeedsEntry = Out<ProtocolSchemas["entries"]["needs"]>;
export type AppliedEntry = Out<ProtocolSchemas["entries"]["applied"]>;
export type CollectEntry = Out<ProtocolSchemas["entries"]["collect"]>;

/** Each bucket's entry, with its value. */
export interface EntryByWhat {
  registry: RegistryEntry;
  needs: NeedsEntry;
  applied: AppliedEntry;
  collect: CollectEntry;
}
export type Entry<W extends What = What> = EntryByWhat[W];

/** Each bucket's entry whose value is too large for any reply: its fields, `valueTooLarge: true` and `valueBytes`. */
export interface TooLargeEntryByWhat {
  registry: Out<ProtocolSchemas["tooLarge"]["registry"]>;
  needs: Out<ProtocolSchemas["tooLarge"]["needs"]>;
  applied: Out<ProtocolSchemas["tooLarge"]["applied"]>;
  collect: Out<ProtocolSchemas["tooLarge"]["collect"]>;
}
export type TooLargeEntry<W extends What = What> = TooLargeEntryByWhat[W];

/** What a reply's `entries` hold. */
export type ReplyEntry<W extends What = What> = Entry<W> | TooLargeEntry<W>;

export type OutOfShape = Out<ProtocolSchemas["outOfShape"]>;

/** One page of the verb's answer for each `what`. */
export interface ReplyByWhat {
  registry: Out<ProtocolSchemas["replies"]["registry"]>;
  needs: Out<ProtocolSchemas["replies"]["needs"]>;
  applied: Out<ProtocolSchemas["replies"]["applied"]>;
  collect: Out<ProtocolSchemas["replies"]["collect"]>;
}
export type Reply<W extends What = What> = ReplyByWhat[W];

/** The body of the verb's error reply (with the Nats-Service-Error-Code and Nats-Service-Error headers). */
export type ErrorReply = Out<ProtocolSchemas["errorReply"]>;

/** One feed event of each bucket. */
export interface FeedEventByWhat {
  registry: Out<ProtocolSchemas["feedEvents"]["registry"]>;
  needs: Out<ProtocolSchemas["feedEvents"]["needs"]>;
  applied: Out<ProtocolSchemas["feedEvents"]["applied"]>;
  collect: Out<ProtocolSchemas["feedEvents"]["collect"]>;
}
export type FeedEvent<W extends What = What> = FeedEventByWhat[W];
/** A feed event that puts an entry in shape. */
export type FeedPut<W extends What = What> = Extract<FeedEvent<W>, { entry: unknown }>;
/** A feed event that puts a key out of its bucket's shape. */
export type FeedPutOutOfShape<W extends What = What> = Extract<FeedEvent<W>, { outOfShape: unknown }>;
/** A feed event that deletes a key (in shape or not). */
export type FeedDelete<W extends What = What> = Extract<FeedEvent<W>, { op: "delete" }>;
