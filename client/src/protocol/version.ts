/**
 * The version of the protocol this service speaks: the buckets and their key
 * shapes, the verb's request and reply, the feed's subjects and events, as
 * docs/protocol.md describes them and schemas/ fixes them. The verb's
 * `$SRV.INFO` names it in its endpoint's metadata (`protocol`).
 *
 * It changes only when a client written for the previous version could
 * misread an answer or be refused: a field removed or renamed, a meaning
 * changed, a rule made stricter. A new optional field a client may ignore
 * does not change it. A plain string, so that this file loads nothing.
 */
export const PROTOCOL_VERSION = "1";
