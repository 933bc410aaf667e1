/**
 * Building a node's keys (pure), with every token checked: a key built here
 * is in its bucket's shape, or the call throws saying which token is wrong.
 * Collection names go into keys =hex escaped.
 */
import { ProvisionerError } from "./protocol/errors.js";
import { decodeName, encodeName, tokenProblem } from "./keys/mod.js";

function token(field: string, value: string): string {
  const problem = tokenProblem(value);
  if (problem !== null) throw new ProvisionerError("BAD_REQUEST", `${field} "${value}" cannot be a key token: ${problem}`);
  return value;
}

/** `<node>.<module>.<kind>.<name>` in the needs bucket. */
export function needsKey(node: string, module: string, kind: string, name: string): string {
  return `${token("node", node)}.${token("module", module)}.${token("kind", kind)}.${token("name", name)}`;
}

/** `<node>.<module>` in the applied bucket. */
export function appliedKey(node: string, module: string): string {
  return `${token("node", node)}.${token("module", module)}`;
}

/** `<node>.<collection, =hex escaped>.<contributor>` in the collect bucket. */
export function collectKey(node: string, collection: string, contributor: string): string {
  if (collection.length === 0) throw new ProvisionerError("BAD_REQUEST", "a collection's name must not be empty");
  return `${token("node", node)}.${encodeCollection(collection)}.${token("contributor", contributor)}`;
}

/** A collection's name as a key token: every byte outside A-Z a-z 0-9 - _ / as `=` and two hex digits (UTF-8). */
export function encodeCollection(name: string): string {
  return encodeName(name);
}

/** A key token back to the collection's name; throws on a token that is not a valid escape. */
export function decodeCollection(token: string): string {
  const d = decodeName(token);
  if (!d.ok) throw new ProvisionerError("BAD_REQUEST", `"${token}" is not an escaped collection name: ${d.reason}`);
  return d.name;
}
