/**
 * Running the registry's operations against the bucket (I/O). Every write is
 * fenced by the seat: `mayWrite` is asked before each one, and only the
 * instance that holds the seat writes.
 *
 * On a server that offers it safely (`write-mode.ts`) each write is also a
 * compare-and-set on the revision the diff saw: an update or a delete on the
 * key's revision, a create on the key having none (or only a delete's
 * marker). Before that release the writes are plain puts and deletes: on a
 * clustered stream, nats-server 2.9 checks
 * `Nats-Expected-Last-Subject-Sequence` before the write is replicated and
 * again as each replica applies it, and a compare-and-set racing another
 * write of the same key can pass the first check and fail the second, after
 * which a replica that restarts numbers every later write of the stream
 * differently from the others (docs/reliability.md; chaos/cas-desync.ts
 * reproduces it). The reconcile is level-based either way: a write refused,
 * or made from a view that has since moved on, is followed by a reconcile
 * that sees whatever came after it.
 */
import { headers } from "@nats-io/nats-core";
import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { Logger } from "../log.js";
import type { Operation } from "./diff.js";
import type { RegistryValue } from "./registry.js";
import { wrapFailure } from "../failure.js";

/**
 * The writes the reconciler makes, each returning the revision it wrote.
 * `seen` is the revision the diff saw the key at (undefined: it saw none);
 * a conditional writer refuses to write over any other.
 */
export interface RegistryWriter {
  put(kind: string, value: RegistryValue, seen?: number): Promise<number>;
  delete(kind: string, seen: number): Promise<number>;
}

export interface ApplyReport {
  readonly created: string[];
  readonly updated: string[];
  readonly deleted: string[];
  readonly unchanged: string[];
  readonly failed: { kind: string; op: string; error: string }[];
  /** The highest revision written (0 when nothing was). */
  readonly lastRevision: number;
}

const encode = (v: RegistryValue): Uint8Array => new TextEncoder().encode(JSON.stringify(v));

/** The header naming the instance that wrote a registry entry, so the stream shows who wrote what. */
export const WRITER_HEADER = "Mesh-Provisioner-Instance";

/** A write the server refused because the key is no longer at the revision it was conditional on. */
export function isMovedOn(err: unknown): boolean {
  const code = err instanceof JetStreamApiError ? err.code : undefined;
  return code === JetStreamApiCodes.StreamWrongLastSequence || code === JetStreamApiCodes.StreamWrongLastSequenceUnknown;
}

export interface RegistryWriterOptions {
  /** Whether the writes are compare-and-sets now (asked at each write: the connected server may change). */
  readonly conditional: () => boolean;
  /** Reads a key's last message (a create over a deleted key is conditional on its delete's marker). */
  readonly kv: Pick<KV, "get">;
  /** The subject a write to a key's subject is published on (the JetStream domain's, if any: JetStreamAccess.publishSubject); as is when absent. */
  readonly publishSubject?: (subject: string) => string;
}

/** Registry writes as JetStream publishes on the bucket's subjects, with the writer's instance in a header. */
export function kvRegistryWriter(js: JetStreamClient, bucket: string, instance: string, opts: RegistryWriterOptions): RegistryWriter {
  const publish = async (kind: string, data: Uint8Array | undefined, op: "DEL" | undefined, expected: number | undefined): Promise<number> => {
    const h = headers();
    h.set(WRITER_HEADER, instance);
    if (op) h.set("KV-Operation", op);
    const ack = await js.publish(opts.publishSubject?.(`$KV.${bucket}.${kind}`) ?? `$KV.${bucket}.${kind}`, data, {
      headers: h,
      ...(expected === undefined ? {} : { expect: { lastSubjectSequence: expected } }),
    });
    return ack.seq;
  };
  /** A create: on the key having no message, or, where it has one, on that being a delete's marker. */
  const create = async (kind: string, data: Uint8Array): Promise<number> => {
    try {
      return await publish(kind, data, undefined, 0);
    } catch (err) {
      if (!isMovedOn(err)) throw err;
      const last = await opts.kv.get(kind);
      if (last === null || last.operation === "PUT") throw err;
      return publish(kind, data, undefined, last.revision);
    }
  };
  return {
    put: (kind, value, seen) => {
      const data = encode(value);
      if (!opts.conditional()) return publish(kind, data, undefined, undefined);
      return seen === undefined ? create(kind, data) : publish(kind, data, undefined, seen);
    },
    delete: (kind, seen) => publish(kind, undefined, "DEL", opts.conditional() ? seen : undefined),
  };
}

export async function applyOperations(
  writer: RegistryWriter,
  operations: readonly Operation[],
  unchanged: readonly string[],
  log: Logger,
  mayWrite: () => boolean = () => true,
): Promise<ApplyReport> {
  const report: ApplyReport = { created: [], updated: [], deleted: [], unchanged: [...unchanged], failed: [], lastRevision: 0 };
  let last = 0;
  for (const op of operations) {
    // Fence every single write: a holder whose lease is in doubt stops at once.
    if (!mayWrite()) {
      report.failed.push({ kind: op.kind, op: op.type, error: "this instance may not write now (its seat is in doubt, or it is stopping)" });
      continue;
    }
    try {
      let rev: number;
      switch (op.type) {
        case "create":
          rev = await writer.put(op.kind, op.value, undefined);
          report.created.push(op.kind);
          break;
        case "update":
          rev = await writer.put(op.kind, op.value, op.revision);
          report.updated.push(op.kind);
          break;
        case "delete":
          rev = await writer.delete(op.kind, op.revision);
          report.deleted.push(op.kind);
          break;
      }
      last = Math.max(last, rev);
    } catch (err) {
      const e = wrapFailure("REGISTRY_WRITE", `cannot ${op.type} registry kind "${op.kind}"`, err);
      report.failed.push({ kind: op.kind, op: op.type, error: e.message });
      if (isMovedOn(err)) {
        log.info(
          { kind: op.kind, op: op.type, seen: "revision" in op ? op.revision : 0 },
          "a registry key changed after the reconcile read it: the write was refused; the next reconcile diffs again",
        );
      } else log.warn({ kind: op.kind, op: op.type, err: e.message, code: e.code }, "a registry write failed; the next reconcile retries it");
    }
  }
  return { ...report, lastRevision: last };
}
