/**
 * Running the registry's operations against the bucket (I/O). Every write is a
 * compare-and-set on the revision the projection saw, so a write made from a
 * stale view fails instead of overwriting a newer value; the reconcile that
 * follows the change sees the newer value and decides again.
 */
import { headers } from "@nats-io/nats-core";
import type { JetStreamClient } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { Logger } from "../log.js";
import { wrapError } from "../errors.js";
import type { Operation } from "./diff.js";
import type { RegistryValue } from "./registry.js";

/** The writes the reconciler makes, each returning the revision it wrote. */
export interface RegistryWriter {
  create(kind: string, value: RegistryValue): Promise<number>;
  update(kind: string, value: RegistryValue, revision: number): Promise<number>;
  delete(kind: string, revision: number): Promise<number>;
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

/**
 * Registry writes as JetStream publishes on the bucket's subjects, each with
 * the expected last revision of its key (compare-and-set) and the writer's
 * instance in a header.
 */
export function kvRegistryWriter(kv: KV, js: JetStreamClient, bucket: string, instance: string): RegistryWriter {
  const publish = async (kind: string, data: Uint8Array | undefined, expected: number, op?: "DEL"): Promise<number> => {
    const h = headers();
    h.set("Nats-Expected-Last-Subject-Sequence", `${expected}`);
    h.set(WRITER_HEADER, instance);
    if (op) h.set("KV-Operation", op);
    const ack = await js.publish(`$KV.${bucket}.${kind}`, data, { headers: h });
    return ack.seq;
  };
  return {
    async create(kind, value) {
      try {
        return await publish(kind, encode(value), 0);
      } catch (err) {
        // The key may hold a delete marker: create on top of that marker only.
        const e = await kv.get(kind);
        if (e === null || e.operation === "PUT") throw err;
        return publish(kind, encode(value), e.revision);
      }
    },
    update: (kind, value, revision) => publish(kind, encode(value), revision),
    delete: (kind, revision) => publish(kind, undefined, revision, "DEL"),
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
          rev = await writer.create(op.kind, op.value);
          report.created.push(op.kind);
          break;
        case "update":
          rev = await writer.update(op.kind, op.value, op.revision);
          report.updated.push(op.kind);
          break;
        case "delete":
          rev = await writer.delete(op.kind, op.revision);
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
