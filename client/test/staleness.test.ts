/**
 * Staleness as the TypeScript client reads it, held to the shared vectors
 * (vectors/staleness.json, which the Go client's tests read too): a reply's
 * `stale`, pages merged, an error body's, and a watch's view.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { headers, type Msg, type NatsConnection } from "@nats-io/nats-core";
import { ProvisionerClient, decodeReply } from "../src/client.js";
import { VerbError } from "../src/errors.js";
import { readStaleness } from "../src/protocol/staleness.js";
import { PROTOCOL_VERSION } from "../src/protocol/version.js";
import type { Answer, FeedEvent, Page, View } from "../src/protocol/messages.js";
import { ViewState } from "../src/view-state.js";
import { watchView } from "../src/watch.js";
import { fakeConnection } from "./helpers/fake-connection.js";

// client/dist/test/ -> the repository
const root = new URL("../../../", import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the vectors' JSON, whose shape the tests assert
const vectors: any = JSON.parse(readFileSync(new URL("vectors/staleness.json", root), "utf8"));

/** A reply as the connection hands it: a body, and the service error's headers when given. */
function reply(body: string, hdrs?: Record<string, string>): Msg {
  const h = hdrs === undefined ? undefined : headers();
  for (const [k, v] of Object.entries(hdrs ?? {})) h?.set(k, v);
  const data = new TextEncoder().encode(body);
  return { data, headers: h, string: () => body, json: () => JSON.parse(body) } as unknown as Msg;
}

/** Poll `ok` until it holds, for at most `ms`. */
async function until(ok: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A connection whose requests are answered with `bodies`, in order. */
function answering(bodies: readonly unknown[]): NatsConnection {
  const queue = bodies.map((b) => reply(JSON.stringify(b)));
  return { request: async () => queue.shift() ?? assert.fail("more pages asked than answered") } as unknown as NatsConnection;
}

test("the staleness vectors name the protocol version they were written for", () => {
  assert.match(vectors.$comment, new RegExp(`protocol version ${PROTOCOL_VERSION}\\b`));
});

describe("reading staleness", () => {
  test("each stale object reads as itself, as none (null), or is ignored when out of shape", () => {
    assert.ok(vectors.readings.some((r: { expect: unknown }) => r.expect === null));
    for (const r of vectors.readings) assert.deepEqual(readStaleness(r.stale) ?? null, r.expect, r.why);
  });

  test("each page carries its own staleness (none where out of shape), and the merged answer the one whose since is the oldest", async () => {
    for (const c of vectors.answers) {
      const pages = (c.pages as Page[]).map((p) => decodeReply(reply(JSON.stringify(p))));
      assert.deepEqual(
        pages.map((p) => p.stale ?? null),
        c.expect.pages,
        c.name,
      );
      // Out of shape, the field is dropped rather than handed on.
      for (const p of pages) assert.ok(p.stale === undefined ? !("stale" in p) : true, c.name);
      const answer = await new ProvisionerClient(answering(c.pages)).get({ what: "needs" });
      assert.equal(answer.revision, c.expect.revision, c.name);
      assert.deepEqual(
        answer.entries.map((e) => e.key),
        c.expect.keys,
        c.name,
      );
      assert.deepEqual(answer.stale ?? null, c.expect.stale, c.name);
      assert.equal("stale" in answer, c.expect.stale !== null, c.name);
    }
  });

  test("an error reply is a VerbError from its headers, with the staleness its body carries, whatever the body", () => {
    assert.ok(vectors.errors.some((e: { body: string }) => e.body === "" || !e.body.startsWith("{")));
    for (const e of vectors.errors) {
      assert.throws(
        () => decodeReply(reply(e.body, e.headers)),
        (err: unknown) => {
          assert.ok(err instanceof VerbError, e.why);
          assert.equal(err.serviceCode, e.code, e.why);
          assert.equal(err.code, e.code === 504 ? "E_REVISION_TIMEOUT" : e.code === 503 ? "E_NOT_SYNCED" : "E_INTERNAL", e.why);
          assert.equal(err.retryable, true, e.why);
          assert.deepEqual(err.stale ?? null, e.stale, e.why);
          return true;
        },
        e.why,
      );
    }
  });

  test("a view's staleness is its last snapshot's: the feed's events do not clear it, a snapshot that is not stale does", () => {
    for (const v of vectors.views) {
      const state = new ViewState("needs");
      for (const step of v.steps) {
        if (step.snapshot !== undefined) {
          state.beginSnapshot();
          assert.equal(state.endSnapshot(step.snapshot as Answer, step.lowest), true, v.name);
        } else state.apply(step.event as FeedEvent);
      }
      const view = state.view();
      assert.equal(view.revision, v.expect.revision, v.name);
      assert.deepEqual(view.stale ?? null, v.expect.stale, v.name);
    }
  });
});

test("a watch whose snapshot was stale asks again at each seat check until an answer is not stale, and its views say so", async (t) => {
  const { nc } = fakeConnection();
  const stale = { since: "2026-12-05T03:00:00.000Z", silentMs: 12_000, revision: 7 };
  let asked = 0;
  let staleAnswers = 2;
  const snapshot = async (): Promise<{ answer: Answer<"needs">; lowest: number }> => {
    asked++;
    const answer = { what: "needs" as const, revision: 7, entries: [], outOfShape: [] };
    return { answer: staleAnswers-- > 0 ? { ...answer, stale } : answer, lowest: 7 };
  };
  const views: View<"needs">[] = [];
  const sub = watchView(nc, snapshot, { what: "needs", node: "n1" }, { seatCheckMs: 20 }).subscribe((v) => views.push(v));
  t.after(() => sub.unsubscribe());
  await until(() => views.some((v) => v.synced && v.stale === undefined), 5_000, "a view that is not stale");
  assert.equal(asked, 3, "two stale answers, then one that is not");
  assert.deepEqual(views.find((v) => v.synced)?.stale, stale, "the first synced view says it is stale");
  const settled = asked;
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(asked, settled, "a view that is not stale is not asked again");
});
