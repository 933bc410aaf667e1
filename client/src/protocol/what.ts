/** The four buckets a request, a reply and an event name by `what` (docs/protocol.md). */
export type What = "registry" | "needs" | "applied" | "collect";
export const WHATS: readonly What[] = Object.freeze(["registry", "needs", "applied", "collect"] as const);
