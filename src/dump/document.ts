/**
 * The dump document: for each of the four buckets its revision, entries and
 * out-of-shape keys, and the seat's holder. Built from the verb's answers by
 * `dump`, or from an instance's own projections on SIGUSR2 — the same shape.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUCKETS, WHATS, type What } from "mesh-provisioner-client/keys";
import type { ProvisionerReader } from "../http/reader.js";
import { wholeAnswer } from "../verb/answer.js";
import type { Answer } from "mesh-provisioner-client";

export interface DumpDocument {
  readonly dumpedAt: string;
  readonly source: string;
  readonly seat: { readonly holder: unknown };
  readonly buckets: Record<What, { bucket: string; revision: number; entries: unknown[]; outOfShape: unknown[] }>;
}

export function dumpDocument(answers: Readonly<Record<What, Answer>>, holder: unknown, source: string, now = new Date()): DumpDocument {
  const buckets = {} as DumpDocument["buckets"];
  for (const w of WHATS) {
    const a = answers[w];
    buckets[w] = { bucket: BUCKETS[w], revision: a.revision, entries: a.entries, outOfShape: a.outOfShape };
  }
  return { dumpedAt: now.toISOString(), source, seat: { holder: holder ?? null }, buckets };
}

/** An instance's own projections as a dump document (for SIGUSR2). */
export function dumpProjections(p: ProvisionerReader): DumpDocument {
  const answers = {} as Record<What, Answer>;
  for (const w of WHATS) answers[w] = JSON.parse(wholeAnswer(w, p.projections[w].store, p.projections.registry.store)) as Answer;
  return dumpDocument(answers, p.seat.holder, `instance ${p.seat.instance}`);
}

export async function writeOwnDump(p: ProvisionerReader, dir = tmpdir()): Promise<string> {
  const path = join(dir, `mesh-provisioner-dump-${process.pid}-${Date.now()}.json`);
  await writeFile(path, JSON.stringify(dumpProjections(p), null, 1));
  return path;
}
