/**
 * What a key may hold, judged against the writes made to it (pure). The
 * rule: a key holds the result of its last acknowledged write, or of a later
 * write whose acknowledgement never came (indeterminate: it may have landed
 * or not). Anything else is a lost write (an acknowledged write missing or
 * replaced by an older one), a resurrection (a deleted key back with an
 * older value), or a value no write made.
 *
 * `upTo` judges the key as of a revision (a verb reply is the bucket exactly
 * as of its revision): only the writes the stream stored at or below it count.
 */
import type { SeenEntry, WriteOp } from "./history.js";

export interface KeyOps {
  /** Acknowledged writes in stream order. */
  readonly acked: readonly WriteOp[];
  readonly byToken: ReadonlyMap<string, WriteOp>;
  readonly indeterminateDelete: boolean;
}

/** The writes of each key, `bucket/key` → what judging needs. */
export function indexWrites(writes: readonly WriteOp[]): Map<string, KeyOps> {
  const out = new Map<string, { acked: WriteOp[]; byToken: Map<string, WriteOp>; indeterminateDelete: boolean }>();
  for (const w of writes) {
    const k = `${w.bucket}/${w.key}`;
    let e = out.get(k);
    if (!e) out.set(k, (e = { acked: [], byToken: new Map(), indeterminateDelete: false }));
    if (w.outcome === "ack") e.acked.push(w);
    if (w.token !== undefined) e.byToken.set(w.token, w);
    if (w.op === "delete" && (w.outcome === "indeterminate" || w.outcome === undefined)) e.indeterminateDelete = true;
  }
  for (const e of out.values()) e.acked.sort((a, b) => a.seq! - b.seq!);
  return out;
}

const EMPTY: KeyOps = { acked: [], byToken: new Map(), indeterminateDelete: false };

const describe = (w: WriteOp): string =>
  `write #${w.id} (${w.op}${w.token ? ` ${w.token}` : ""}, ${w.outcome}${w.seq !== undefined ? ` at seq ${w.seq}` : ""}, sent at ${w.sentAt} ms)`;

/** Undefined when `actual` is allowed; otherwise what is wrong. */
export function judgeKey(key: string, ops: KeyOps | undefined, actual: SeenEntry | undefined, upTo?: number): string | undefined {
  const o = ops ?? EMPTY;
  let last: WriteOp | undefined;
  for (const w of o.acked) if (upTo === undefined || w.seq! <= upTo) last = w;
  if (actual === undefined) {
    if (last === undefined || last.op === "delete") return undefined;
    if (o.indeterminateDelete) return undefined; // a delete without an answer may have landed after it
    return `lost: ${key} is absent, but ${describe(last)} was acknowledged`;
  }
  if (upTo !== undefined && actual.revision > upTo) return `${key} is shown at revision ${actual.revision}, above the reply's revision ${upTo}`;
  const src = actual.token === null ? undefined : o.byToken.get(actual.token);
  if (src === undefined) return `unknown value: ${key} holds token ${actual.token} at revision ${actual.revision}, which no write to this key made`;
  if (src.outcome === "ack" && src.seq !== actual.revision) {
    return `${key} holds ${describe(src)} at revision ${actual.revision}, not at the sequence its acknowledgement gave`;
  }
  if (src.outcome === "failed") return `${key} holds ${describe(src)}, a write that was refused (${src.error ?? "?"})`;
  if (last !== undefined && actual.revision === last.seq && src !== last) return `${key} holds ${describe(src)} at the sequence of ${describe(last)}`;
  if (last !== undefined && actual.revision < last.seq!) {
    const what = last.op === "delete" ? "resurrected" : "lost";
    return `${what}: ${key} holds ${describe(src)} at revision ${actual.revision}, but ${describe(last)} was acknowledged after it`;
  }
  return undefined;
}
