/**
 * The verb's request as a zod schema (pure), with the bounds and the
 * narrowing each bucket takes: the one schema the service validates with and
 * schemas/request.schema.json is written from.
 */
import { createRequire } from "node:module";
import type * as Zod from "zod";
import { TOKEN_RE } from "mesh-provisioner-client/protocol/token.js";
import { WHATS, type What } from "mesh-provisioner-client/protocol/what.js";

/** Bounds on the work one request may ask for. */
export const LIMITS = Object.freeze({
  /** Largest request body accepted. */
  maxRequestBytes: 16 * 1024,
  /** Largest `limit`. */
  maxLimit: 100_000,
  /** Longest `after` (a key as stored). */
  maxAfterLength: 4096,
  /** Longest `collection` name. */
  maxCollectionLength: 1024,
});

/** Which narrowing fields apply to which bucket. */
export const FILTERS: Readonly<Record<What, readonly string[]>> = Object.freeze({
  registry: [],
  needs: ["node", "module"],
  applied: ["node", "module"],
  collect: ["node", "contributor", "collection"],
});

/**
 * The request's schema, built on first use. Loading zod is a large part of
 * the service's start before its first sync, and a node's usual request
 * never needs it (verb/request.ts's `quickRequest`): it is loaded
 * (synchronously, once) by the first request the quick read does not take.
 */
function buildSchema() {
  const { z } = createRequire(import.meta.url)("zod") as typeof Zod;
  const token = (field: string) =>
    z.string({ error: `${field} must be a string (a plain token)` }).regex(TOKEN_RE, {
      error: `${field} must be a plain token: only A-Z a-z 0-9 - _ / = (no "*", ">", ".", spaces, and not empty)`,
    });
  const whole = (field: string) => z.number({ error: `${field} must be a number` }).int({ error: `${field} must be a whole number` });

  return z.strictObject({
    what: z.enum(WHATS as [What, ...What[]], { error: `what must be one of ${WHATS.join(", ")}` }).optional(),
    node: token("node").optional(),
    module: token("module").optional(),
    contributor: token("contributor").optional(),
    collection: z
      .string({ error: "collection must be a string: the collection's name" })
      .min(1, { error: "collection must not be empty" })
      .max(LIMITS.maxCollectionLength, { error: `collection must be at most ${LIMITS.maxCollectionLength} characters` })
      .optional(),
    limit: whole("limit")
      .min(1, { error: "limit must be at least 1" })
      .max(LIMITS.maxLimit, { error: `limit must be at most ${LIMITS.maxLimit}; page with next/after for more` })
      .optional(),
    after: z
      .string({ error: "after must be a string: the next of the previous reply" })
      .max(LIMITS.maxAfterLength, { error: `after must be at most ${LIMITS.maxAfterLength} characters` })
      .optional(),
    minRevision: whole("minRevision").min(0, { error: "minRevision must not be negative" }).optional(),
  });
}

let schema: ReturnType<typeof buildSchema> | undefined;

/** The zod schema of a request body (the one the service validates with). */
export function requestSchema(): ReturnType<typeof buildSchema> {
  return (schema ??= buildSchema());
}
