/**
 * The verb's request: parse and validate (pure). Every refusal is a 400 whose
 * message says which field is wrong and what to write instead. Filters must
 * be plain tokens so a narrowing can never widen the query (`*`, `>`, `.`,
 * spaces and empty strings are refused); `collection` is a name, any
 * non-empty string.
 */
import type * as Zod from "zod";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { TOKEN_RE, WHATS, type What } from "mesh-provisioner-client/keys";
import { FILTERS, LIMITS, requestSchema } from "../schemas/request-schema.js";
import { scopedNode, type VerbScope } from "mesh-provisioner-client/protocol/scope.js";

export interface VerbRequest {
  readonly what: What;
  /** The narrowing, field -> value (collection by its decoded name). */
  readonly filters: Readonly<Record<string, string>>;
  readonly limit?: number;
  readonly after?: string;
  readonly minRevision?: number;
}

function describe(issue: Zod.z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}: the fields are what, node, module, contributor, collection, limit, after, minRevision`;
  }
  if (issue.path.length === 0) return "the request must be a JSON object (or an empty body)";
  return issue.message;
}

/** Parse a request body. Empty means `{"what":"registry"}`. Throws a 400 ProvisionerError. */
export function parseRequest(body: Uint8Array | string): VerbRequest {
  const size = typeof body === "string" ? Buffer.byteLength(body) : body.length;
  if (size > LIMITS.maxRequestBytes) {
    throw new ProvisionerError("REQUEST_TOO_LARGE", `the request is ${size} bytes; at most ${LIMITS.maxRequestBytes} are accepted`);
  }
  const text = (typeof body === "string" ? body : new TextDecoder().decode(body)).trim();
  if (text.length === 0) return { what: "registry", filters: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProvisionerError("BAD_REQUEST", 'the request is not JSON: send an empty body or an object such as {"what":"needs","node":"n1"}');
  }
  return quickRequest(json) ?? schemaRequest(json);
}

/** A parsed body read by the schema: the request, or a 400 ProvisionerError saying what is wrong. */
export function schemaRequest(json: unknown): VerbRequest {
  const r = requestSchema().safeParse(json);
  if (!r.success) {
    throw new ProvisionerError("BAD_REQUEST", r.error.issues.map(describe).join("; "));
  }
  const { what = "registry", limit, after, minRevision, ...rest } = r.data;
  const allowed = FILTERS[what];
  const filters: Record<string, string> = {};
  for (const [field, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    if (!allowed.includes(field)) {
      const which = allowed.length === 0 ? "no filters" : `only ${allowed.join(", ")}`;
      throw new ProvisionerError("BAD_REQUEST", `the filter "${field}" does not apply to ${what}: ${what} takes ${which}`);
    }
    filters[field] = value;
  }
  return { what, filters, limit, after, minRevision };
}

const QUICK_FIELDS = new Set(["what", "node", "module", "minRevision"]);

/**
 * The request a node's client sends most (`what`, `node`, `module`,
 * `minRevision`, each valid), read without the schema; undefined for anything
 * else, which the schema then reads and, where wrong, explains. It accepts
 * only what the schema accepts and reads it the same way (a property test
 * holds it to that), so the request every node sends skips the schema's
 * walk, the costliest step of reading a request (docs/benchmarks.md).
 */
export function quickRequest(json: unknown): VerbRequest | undefined {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return undefined;
  const o = json as Record<string, unknown>;
  let what: What = "registry";
  const filters: Record<string, string> = {};
  let minRevision: number | undefined;
  for (const field in o) {
    if (!QUICK_FIELDS.has(field)) return undefined;
    const v = o[field];
    if (field === "what") {
      if (typeof v !== "string" || !(WHATS as readonly string[]).includes(v)) return undefined;
      what = v as What;
    } else if (field === "minRevision") {
      if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) return undefined;
      minRevision = v;
    } else {
      if (typeof v !== "string" || !TOKEN_RE.test(v)) return undefined;
      filters[field] = v;
    }
  }
  for (const field in filters) if (!FILTERS[what].includes(field)) return undefined;
  return minRevision === undefined
    ? { what, filters, limit: undefined, after: undefined, minRevision: undefined }
    : { what, filters, limit: undefined, after: undefined, minRevision };
}

/** A canonical text of a request, for caching answers: same request, same text. */
export function requestKey(req: VerbRequest): string {
  const f = Object.keys(req.filters)
    .sort()
    .map((k) => `${k}=${JSON.stringify(req.filters[k])}`)
    .join("&");
  return `${req.what}?${f}&limit=${req.limit ?? ""}&after=${JSON.stringify(req.after ?? null)}`;
}

/** `req` as the verb answers it on the subject of `scope` (see protocol/scope.ts); throws a 403 where the scope does not reach it. */
export function withinScope(req: VerbRequest, scope: VerbScope): VerbRequest {
  if (scope.kind === "mesh") return req;
  const asked = req.filters["node"];
  const node = scopedNode(scope, req.what, asked);
  return node === asked ? req : { ...req, filters: { ...req.filters, node: node as string } };
}
