/**
 * `query`'s flags read into the verb's request, the client's scope and its
 * timeout (pure), before anything connects: the request is checked by the
 * verb's own validation (src/verb/request.ts) and the scope by the rule the
 * verb answers it with, so what the verb would refuse with a 400 or a 403 is
 * refused here as a bad flag, naming it.
 */
import { WHATS, type What } from "mesh-provisioner-client/keys";
import type { ClientScope } from "mesh-provisioner-client";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { MESH_SCOPE, NEEDS_SCOPE, nodeScope, type VerbScope } from "mesh-provisioner-client/protocol/scope.js";
import { isPlainToken } from "mesh-provisioner-client/protocol/token.js";
import { schemaRequest, withinScope, type VerbRequest } from "../verb/request.js";
import { commandTimeoutMs, type ConnectionFlags } from "../config.js";
import { Failure } from "../failure.js";

export type QueryFlags = ConnectionFlags & {
  node?: string;
  module?: string;
  contributor?: string;
  collection?: string;
  limit?: string;
  minRevision?: string;
  json?: boolean;
  timeout?: string;
  scope?: string;
};

/** What `query` asks, checked. */
export interface QueryPlan {
  /** The request without its page size: the client pages with `pageSize`. */
  readonly request: { what: What } & Record<string, string | number>;
  readonly scope: ClientScope;
  readonly timeoutMs: number;
  readonly pageSize?: number;
}

/** Each request field a flag of `query` sets, and the flag. */
const FLAG_OF = {
  node: "--node",
  module: "--module",
  contributor: "--contributor",
  collection: "--collection",
  limit: "--limit",
  minRevision: "--min-revision",
};

/** `--scope`: mesh, needs, or node:<N>. */
export function parseScope(text: string | undefined): ClientScope {
  if (text === undefined || text === "mesh") return "mesh";
  if (text === "needs") return "needs";
  const node = text.startsWith("node:") ? text.slice("node:".length) : undefined;
  if (node !== undefined && isPlainToken(node)) return { node };
  throw new Failure("CONFIG", `--scope ${JSON.stringify(text)}: use mesh, needs (a provider's grant) or node:<N> (node N's grant, N a plain token)`);
}

function verbScope(scope: ClientScope): VerbScope {
  return scope === "mesh" ? MESH_SCOPE : scope === "needs" ? NEEDS_SCOPE : nodeScope(scope.node);
}

/** `fn`'s result; the verb's refusal of it becomes a bad flag's, `said` naming the flag and its value. */
function asFlag<T>(said: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ProvisionerError) throw new Failure("CONFIG", `${said}: ${err.message}`, { cause: err });
    throw err;
  }
}

/** `query <what>` with its flags, checked as the verb checks them; throws a CONFIG Failure naming the flag at fault. */
export function queryPlan(what: string, flags: QueryFlags): QueryPlan {
  if (!(WHATS as readonly string[]).includes(what)) {
    throw new Failure("CONFIG", `"${what}" is not something to query: use one of ${WHATS.join(", ")}`);
  }
  const w = what as What;
  const fields: Record<string, string | number> = {};
  for (const field of Object.keys(FLAG_OF) as (keyof typeof FLAG_OF)[]) {
    const value = flags[field];
    if (value === undefined) continue;
    fields[field] = field === "limit" || field === "minRevision" ? Number(value) : value;
    // One field at a time, so the refusal names the flag that carries it.
    asFlag(`${FLAG_OF[field]} ${JSON.stringify(value)}`, () => schemaRequest({ what: w, [field]: fields[field] }));
  }
  const { limit, ...request } = fields;
  const asked: VerbRequest = schemaRequest({ what: w, ...request });
  const scope = parseScope(flags.scope);
  asFlag(`--scope ${flags.scope ?? "mesh"}`, () => withinScope(asked, verbScope(scope)));
  return {
    request: { what: w, ...request },
    scope,
    timeoutMs: commandTimeoutMs(flags.timeout),
    pageSize: limit === undefined ? undefined : Number(limit),
  };
}
