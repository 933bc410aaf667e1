/**
 * The start-up phases' check of the answers (I/O): the witness nodes' needs,
 * which no writer touches, asked round the queue group at a revision and
 * compared with the bucket.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { jsonBody } from "./measure.js";

/**
 * Ask the witness nodes' needs `asks` times round the queue group with
 * `minRevision`, and compare each answer with the bucket: what differs, described.
 */
export async function askWitnesses(
  nc: NatsConnection,
  truth: ReadonlyMap<string, ReadonlyMap<string, string>>,
  minRevision: number,
  asks: number,
): Promise<string[]> {
  const witnesses = [...truth.keys()];
  const wrong: string[] = [];
  for (let a = 0; a < asks; a++) {
    const node = witnesses[a % witnesses.length]!;
    const m = await nc.request(VERB_SUBJECT, jsonBody({ what: "needs", node, minRevision }), { timeout: 10_000 });
    const body = m.json<{ revision?: number; entries?: { key: string; value: unknown }[]; error?: unknown }>();
    if (!body.entries) {
      wrong.push(`${node}: ${JSON.stringify(body).slice(0, 200)}`);
      continue;
    }
    const want = truth.get(node)!;
    const got = new Map(body.entries.map((e) => [e.key, JSON.stringify(e.value)]));
    const differs = [...want].filter(([k, v]) => got.get(k) !== v).length + [...got.keys()].filter((k) => !want.has(k)).length;
    if (differs > 0 || (body.revision ?? 0) < minRevision) wrong.push(`${node} at revision ${body.revision}: ${differs} keys differ from the bucket`);
  }
  return wrong;
}
