/**
 * Who may read what through the verb (pure): each verb subject answers one
 * scope, and a grant allows a role the subjects of its scope only, so the
 * server's subject permissions decide what a caller can read, not a field of
 * its request.
 *
 *   mesh      mesh-provisioner.provisioning          everything (the provisioner's user, operators, open meshes)
 *   node N    mesh-provisioner.provisioning.N        the registry, and node N's needs, applied and collect
 *   needs     mesh-provisioner.provisioning-needs    the registry, and every node's needs (providers)
 *
 * A request on a scoped subject is narrowed to the scope: node N's subject
 * answers `{"what":"needs"}` with N's needs; a request naming another node,
 * or a bucket outside the scope, is refused with a 403.
 */
import { ProvisionerError } from "./errors.js";
import { NEEDS_VERB_SUBJECT, nodeVerbSubject, VERB_SUBJECT } from "./subjects.js";
import { isPlainToken } from "./token.js";
import type { What } from "./what.js";

export type VerbScope = { readonly kind: "mesh" } | { readonly kind: "node"; readonly node: string } | { readonly kind: "needs" };

export const MESH_SCOPE: VerbScope = { kind: "mesh" };
export const NEEDS_SCOPE: VerbScope = { kind: "needs" };

/** Node `node`'s scope; throws a 400 when `node` is not a plain token (no subject token could then name it). */
export function nodeScope(node: string): VerbScope {
  if (!isPlainToken(node))
    throw new ProvisionerError("BAD_REQUEST", `a node's verb subject ends with the node's name, a plain token; ${JSON.stringify(node)} is not one`);
  return { kind: "node", node };
}

/** The subject that answers `scope`. */
export function scopeSubject(scope: VerbScope): string {
  return scope.kind === "mesh" ? VERB_SUBJECT : scope.kind === "node" ? nodeVerbSubject(scope.node) : NEEDS_VERB_SUBJECT;
}

/**
 * The subject a client in `scope` asks a request on: its scope's, except that
 * a client of the whole mesh asking for one node asks on that node's subject
 * (the same answer, and what a node-scoped grant allows).
 */
export function requestSubject(scope: VerbScope, node: string | undefined): string {
  if (scope.kind === "mesh" && node !== undefined && isPlainToken(node)) return nodeVerbSubject(node);
  return scopeSubject(scope);
}

/**
 * The node filter a request in `scope` is answered with: the request's own
 * where the scope allows it, the scope's node where the request names none;
 * throws a 403 where the scope does not reach what is asked.
 */
export function scopedNode(scope: VerbScope, what: What, node: string | undefined): string | undefined {
  if (scope.kind === "mesh" || what === "registry") return node;
  if (scope.kind === "needs") {
    if (what === "needs") return node;
    throw new ProvisionerError(
      "FORBIDDEN",
      `${NEEDS_VERB_SUBJECT} answers the registry and the needs only, not ${what}: ask ${VERB_SUBJECT} with a grant that allows it`,
    );
  }
  if (node === undefined || node === scope.node) return scope.node;
  throw new ProvisionerError(
    "FORBIDDEN",
    `${nodeVerbSubject(scope.node)} answers node ${scope.node}'s entries only, not node ${node}'s: each node asks on its own subject, ${nodeVerbSubject(node)}`,
  );
}
