/**
 * Small helpers shared by the verb's integration tests: bounded polling, raw
 * requests (exact bytes and headers), following `next` through every page,
 * bounded-concurrency writes and the warn lines logged for a key.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import type { KV } from "@nats-io/kv";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import type { Reply, Stack } from "./stack.js";

/** Poll `fn` until it returns something other than undefined (errors count as "not yet"); bounded. */
export async function until<T>(fn: () => Promise<T | undefined> | T | undefined, ms = 10_000, what = "condition"): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface RawReply {
  readonly data: Uint8Array;
  readonly headers: Record<string, string>;
}

/** Ask the verb and keep the reply's exact bytes. */
export async function askRaw(nc: NatsConnection, request: Record<string, unknown> | string, timeoutMs = 10_000): Promise<RawReply> {
  const body = typeof request === "string" ? request : JSON.stringify(request);
  const m = await nc.request(VERB_SUBJECT, body, { timeout: timeoutMs });
  const headers: Record<string, string> = {};
  for (const k of m.headers?.keys() ?? []) headers[k] = m.headers?.get(k) ?? "";
  return { data: m.data, headers };
}

/** Ask until a 200 (the projection may be catching up), then return it. */
export async function askOk(stack: Stack, request: Record<string, unknown>, ms = 10_000): Promise<Reply> {
  return until(
    async () => {
      const r = await stack.ask(request);
      if (r.status !== 200) throw new Error(`status ${r.status}: ${JSON.stringify(r.body)}`);
      return r;
    },
    ms,
    `a 200 answer to ${JSON.stringify(request)}`,
  );
}

/** Every page of an answer, following `next` (bounded number of pages). */
export async function allPages(stack: Stack, request: Record<string, unknown>, maxPages = 10_000): Promise<Reply[]> {
  const pages: Reply[] = [];
  let after: string | undefined;
  for (let n = 0; n < maxPages; n++) {
    const r = await stack.ask(after === undefined ? request : { ...request, after });
    if (r.status !== 200) throw new Error(`page ${n + 1} of ${JSON.stringify(request)}: status ${r.status}: ${JSON.stringify(r.body)}`);
    pages.push(r);
    if (r.body.next === undefined) return pages;
    after = r.body.next as string;
  }
  throw new Error(`more than ${maxPages} pages for ${JSON.stringify(request)}`);
}

/** Run `fn` over `items` with at most `width` in flight; results in input order. */
export async function pool<I, O>(items: readonly I[], width: number, fn: (item: I, index: number) => Promise<O>): Promise<O[]> {
  const out = new Array<O>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i] as I, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

/** Put a value (string or bytes) and return the revision the bucket gave it. */
export async function put(kv: KV, key: string, value: string | Uint8Array): Promise<number> {
  return kv.put(key, typeof value === "string" ? new TextEncoder().encode(value) : value);
}

/** The warn lines logged about a key. */
export function warnLinesFor(stack: Stack, key: string): Record<string, unknown>[] {
  return stack.lines().filter((l) => l["level"] === "warn" && l["key"] === key);
}

/** A value as the verb answers it: parsed JSON, or the string as stored. */
export function asAnswered(text: string): unknown {
  if (text.length === 0) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
