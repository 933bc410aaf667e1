import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { startStack, type Stack } from "../helpers/stack.js";
import { memoryLogger } from "../../src/log.js";
import { WHATS } from "mesh-provisioner-client/keys";
import { ProvisionerClient } from "mesh-provisioner-client";
import { compareAnswers } from "../../src/verify/compare.js";
import { readBuckets } from "../../src/verify/read-buckets.js";

const WRITERS = 8;
const READERS = 16;
const DURATION_MS = 4000;

describe("under load and random input", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack?.stop();
  });

  test("8 writers and 16 readers together: no read fails, and afterwards the projections equal the buckets", async () => {
    const needs = await stack.kv("needs");
    const collect = await stack.kv("collect");
    const end = Date.now() + DURATION_MS;
    let writes = 0;
    let reads = 0;
    const failures: string[] = [];
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; Date.now() < end && i < 5000; i++) {
        const node = `n${(w + i) % 6}`;
        const r = (i * 7919 + w) % 40;
        if (i % 9 === 8) await needs.delete(`${node}.m${r % 5}.config.k${r}`);
        else if (i % 4 === 3) await collect.put(`${node}.shell=3Azsh.c${r % 3}`, JSON.stringify({ w, i }));
        else await needs.put(`${node}.m${r % 5}.config.k${r}`, JSON.stringify({ w, i }));
        writes++;
      }
    };
    const requests = [
      { what: "needs" },
      { what: "needs", node: "n1" },
      { what: "needs", node: "n2", module: "m3" },
      { what: "collect", collection: "shell:zsh" },
      {},
    ];
    const reader = async (r: number): Promise<void> => {
      for (let i = 0; Date.now() < end && i < 5000; i++) {
        const req = requests[(r + i) % requests.length] as Record<string, unknown>;
        try {
          const reply = await stack.ask({ ...req, limit: 50 }, 5000);
          if (reply.status !== 200) failures.push(`${JSON.stringify(req)} -> ${reply.status} ${JSON.stringify(reply.body)}`);
          reads++;
        } catch (err) {
          failures.push(`${JSON.stringify(req)} -> ${(err as Error).message}`);
        }
      }
    };
    await Promise.all([...Array.from({ length: WRITERS }, (_, w) => writer(w)), ...Array.from({ length: READERS }, (_, r) => reader(r))]);
    assert.deepEqual(failures, []);
    assert.ok(writes > 100 && reads > 100, `enough load: ${writes} writes, ${reads} reads`);

    const truth = await readBuckets(stack.client, memoryLogger("error").log);
    for (const w of WHATS) {
      const answer = await new ProvisionerClient(stack.client).get({ what: w, minRevision: truth[w].revision });
      assert.deepEqual(compareAnswers(w, answer, truth[w]), [], `${w}: the projection equals the bucket`);
    }
  });

  test("random request bodies sent to the running verb are always answered, with 200 or 400", async () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }));
    const field = fc.constantFrom("what", "node", "module", "contributor", "collection", "limit", "after", "minRevision", "bogus");
    const request = fc.oneof(
      fc.dictionary(field, fc.oneof(value, fc.constantFrom(...WHATS), fc.constantFrom("n1", "*", ">", "a.b", "", " "))),
      fc.string(),
      fc.json(),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString("latin1")),
    );
    await fc.assert(
      fc.asyncProperty(request, async (body) => {
        const text = typeof body === "string" ? body : JSON.stringify(body);
        // A minRevision ahead of the bucket would wait out --max-wait and answer 504 (tested elsewhere):
        // keep every non-negative whole minRevision at 0, which every bucket has reached.
        const reply = await stack.ask(
          text.replace(/"minRevision":\s*\d+(?![.eE\d])/g, () => '"minRevision":0'),
          8000,
        );
        assert.ok(reply.status === 200 || reply.status === 400, `${text} -> ${reply.status}`);
        if (reply.status === 400) {
          assert.equal(reply.body.error.code, 400);
          assert.ok(reply.headers["Nats-Service-Error"]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
