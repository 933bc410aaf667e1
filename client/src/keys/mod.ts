/**
 * Keys of the four buckets: plain tokens, =hex escaping of collection names,
 * shapes, the buckets' names. A token's rule and the four `what`s are the
 * protocol's, re-exported here beside the keys made of them.
 */

export { TOKEN_RE, TOKEN_CHARS, isPlainToken, splitKey, tokenProblem } from "../protocol/token.js";
export { WHATS, type What } from "../protocol/what.js";
export { encodeName, decodeName } from "./hex.js";
export type { Decoded } from "./hex.js";
export { parseKey, parseNeedsKey, parseAppliedKey, parseCollectKey, parseRegistryKey, readableContradicts } from "./shapes.js";
export { BUCKETS, CHECKPOINT_BUCKET, objectStreamName, SEAT_BUCKET, streamName } from "./buckets.js";
export { knownKinds, isAnswered, answeredCheck, answeredChecks, type RegistryLookup } from "./kinds.js";
export type { Shape, NeedsFields, AppliedFields, CollectFields, RegistryFields } from "./shapes.js";
