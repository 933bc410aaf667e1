/**
 * Running the registry's operations against the bucket (I/O). Writes are
 * plain puts and deletes, fenced by the seat: `mayWrite` is asked before each
 * one, and only the instance that holds the seat writes.
 *
 * Why not a compare-and-set on the revision the projection saw: on a
 * clustered stream, nats-server 2.9 checks `Nats-Expected-Last-Subject-Sequence`
 * before the write is replicated and again as each replica applies it. A
 * compare-and-set racing another write of the same key (an operator's put, a
 * second holder) can pass the first check and fail the second, and a replica
 * that restarts around such a failure numbers every later write of the
 * stream differently from the others (docs/reliability.md;
 * chaos/cas-desync.ts reproduces it). Plain writes have no such check. The
 * reconcile is level-based, so a write made from a view that has since moved
 * on is only ever the compiled table's value, and the next reconcile sees
 * whatever came after it.
 */
import { headers } from "@nats-io/nats-core";
import type { JetStreamClient } from "@nats-io/jetstream";
import type { Logger } from "../log.js";
import { wrapError } from "../protocol/errors.js";
import type { Operation } from "./diff.js";
import type { RegistryValue } from "./registry.js";

/** The writes the reconciler makes, each returning the revision it wrote. */
export interface RegistryWriter {
  put(kind: string, value: RegistryValue): Promise<number>;
  delete(kind: string): Promise<number>;
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

/** Registry writes as JetStream publishes on the bucket's subjects, with the writer's instance in a header. */
export function kvRegistryWriter(js: JetStreamClient, bucket: string, instance: string): RegistryWriter {
  const publish = async (kind: string, data: Uint8Array | undefined, op?: "DEL"): Promise<number> => {
    const h = headers();
    h.set(WRITER_HEADER, instance);
    if (op) h.set("KV-Operation", op);
    const ack = await js.publish(`$KV.${bucket}.${kind}`, data, { headers: h });
    return ack.seq;
  };
  return {
    put: (kind, value) => publish(kind, encode(value)),
    delete: (kind) => publish(kind, undefined, "DEL"),
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
      report.failed.push({ kind: op.kind, op: op.type, error: "this instance no longer holds the seat" });
      continue;
    }
    try {
      let rev: number;
      switch (op.type) {
        case "create":
          rev = await writer.put(op.kind, op.value);
          report.created.push(op.kind);
          break;
        case "update":
          rev = await writer.put(op.kind, op.value);
          report.updated.push(op.kind);
          break;
        case "delete":
          rev = await writer.delete(op.kind);
          report.deleted.push(op.kind);
          break;
      }
      last = Math.max(last, rev);
    } catch (err) {
      const e = wrapError("REGISTRY_WRITE", `cannot ${op.type} registry kind "${op.kind}"`, err);
      report.failed.push({ kind: op.kind, op: op.type, error: e.message });
      log.warn({ kind: op.kind, op: op.type, err: e.message, code: e.code }, "a registry write failed; the next reconcile retries it");
    }
  }
  return { ...report, lastRevision: last };
}
