/**
 * Asking the verb from the client side (I/O): one page, or every page by
 * following `next`. Service errors come back as ProvisionerError("VERB") with
 * the service's code and message.
 */
import type { NatsConnection, Msg } from "@nats-io/nats-core";
import { ProvisionerError, wrapError } from "../errors.js";
import { VERB_SUBJECT } from "./service.js";

export interface Answer {
  what: string;
  revision: number;
  entries: Record<string, unknown>[];
  outOfShape: { key: string; reason: string }[];
  next?: string;
}

export class VerbError extends ProvisionerError {
  constructor(
    readonly serviceCode: number,
    message: string,
  ) {
    super("VERB", message);
  }
}

export function decodeReply(m: Msg): Answer {
  const code = m.headers?.get("Nats-Service-Error-Code");
  if (code) throw new VerbError(Number(code), `${m.headers?.get("Nats-Service-Error") ?? "error"} (${code})`);
  return m.json<Answer>();
}

export async function ask(nc: NatsConnection, request: Record<string, unknown>, timeoutMs = 10_000): Promise<Answer> {
  let m: Msg;
  try {
    m = await nc.request(VERB_SUBJECT, JSON.stringify(request), { timeout: timeoutMs });
  } catch (err) {
    throw wrapError("VERB", `no answer from ${VERB_SUBJECT} (is mesh-provisioner serve running?)`, err);
  }
  return decodeReply(m);
}

/** Ask every page, following `next`, and merge them into one answer. */
export async function askAll(
  nc: NatsConnection,
  request: Record<string, unknown>,
  opts: { timeoutMs?: number; onPage?: (a: Answer) => void } = {},
): Promise<Answer> {
  const merged: Answer = { what: String(request["what"] ?? "registry"), revision: 0, entries: [], outOfShape: [] };
  let after: string | undefined;
  for (;;) {
    const page = await ask(nc, after === undefined ? request : { ...request, after }, opts.timeoutMs);
    opts.onPage?.(page);
    merged.what = page.what;
    merged.revision = Math.max(merged.revision, page.revision);
    for (const e of page.entries) merged.entries.push(e);
    for (const o of page.outOfShape) merged.outOfShape.push(o);
    if (page.next === undefined) return merged;
    after = page.next;
  }
}
