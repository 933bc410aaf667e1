/** Keys of the four buckets: plain tokens, =hex escaping of collection names, shapes. */

export { TOKEN_RE, TOKEN_CHARS, isPlainToken, splitKey, tokenProblem } from "./token.js";
export { encodeName, decodeName } from "./hex.js";
export type { Decoded } from "./hex.js";
export {
  WHATS,
  parseKey,
  parseNeedsKey,
  parseAppliedKey,
  parseCollectKey,
  parseRegistryKey,
  readableContradicts,
} from "./shapes.js";
export { BUCKETS, SEAT_BUCKET, streamName } from "./buckets.js";
export { knownKinds, isAnswered, answeredCheck, type RegistryLookup } from "./kinds.js";
export type { What, Shape, NeedsFields, AppliedFields, CollectFields, RegistryFields } from "./shapes.js";
