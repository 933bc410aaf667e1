/**
 * What a message of a KV bucket's stream does to its key (its `KV-Operation`
 * header; none means a put). Below both the watch that reads it and the store
 * that applies it.
 */
export type Operation = "PUT" | "DEL" | "PURGE";
