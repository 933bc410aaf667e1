/**
 * The registry's two rules about kinds (pure), in one place for the
 * projections, the reconciler, the verb, the feed and the dashboard:
 *
 * - a registry key is in shape when it is a kind the compiled table names
 *   (the table's kinds are the known kinds);
 * - a kind is answered while the registry holds an entry under it, and only
 *   needs carry that as their `answered` flag.
 */
import { WHATS, type What } from "../protocol/what.js";

/** The known kinds: every kind the table names. */
export function knownKinds(table: Iterable<{ readonly kind: string }>): ReadonlySet<string> {
  const out = new Set<string>();
  for (const v of table) out.add(v.kind);
  return out;
}

/** What the registry's projection offers this rule: the slot of a key, negative when it holds none. */
export interface RegistryLookup {
  slotOf(key: string): number;
}

/** Whether the registry answers a kind: it holds an entry under that kind. */
export function isAnswered(registry: RegistryLookup, kind: string): boolean {
  return registry.slotOf(kind) >= 0;
}

/**
 * The check an answer or an event of `what` marks unanswered entries with:
 * for needs, whether the registry answers a kind; nothing for any other bucket.
 */
export function answeredCheck(what: What, registry: RegistryLookup): ((kind: string) => boolean) | undefined {
  return what === "needs" ? (kind) => isAnswered(registry, kind) : undefined;
}

/** `answeredCheck` of each bucket. */
export function answeredChecks(registry: RegistryLookup): Readonly<Record<What, ((kind: string) => boolean) | undefined>> {
  return Object.fromEntries(WHATS.map((w) => [w, answeredCheck(w, registry)])) as Record<What, ((kind: string) => boolean) | undefined>;
}
