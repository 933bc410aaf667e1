import { test } from "node:test";
import assert from "node:assert/strict";
import { watchView } from "../src/watch.js";
import { BACKOFF } from "../src/backoff/backoff.js";
import type { Answer, View } from "../src/protocol/messages.js";
import { holdTimeouts, settle } from "./helpers/timeouts.js";
import { fakeConnection } from "./helpers/fake-connection.js";

test("a client watch whose snapshots fail asks again after waits by the retry policy, from the base again once a snapshot is taken", async (t) => {
  const timeouts = holdTimeouts(t);
  // The lowest draw: each wait is exactly half its ceiling.
  t.mock.method(Math, "random", () => 0);
  const { nc, status } = fakeConnection();
  let failing = true;
  let asked = 0;
  const snapshot = async (): Promise<{ answer: Answer<"registry">; lowest: number }> => {
    asked++;
    if (failing) throw new Error("503");
    return { answer: { what: "registry", revision: 7, entries: [], outOfShape: [] }, lowest: 7 };
  };
  const views: View<"registry">[] = [];
  const sub = watchView(nc, snapshot, { what: "registry" }, { seatCheckMs: 0 }).subscribe((v) => views.push(v));
  t.after(() => sub.unsubscribe());
  await settle();
  assert.equal(asked, 1);
  const { baseMs, capMs } = BACKOFF.snapshot;
  const waits: number[] = [];
  for (let i = 0; i < 8; i++) {
    const retry = timeouts.at(-1)!;
    waits.push(retry.ms);
    retry.fire();
    await settle();
  }
  assert.equal(asked, 9);
  const ceilings = [baseMs, 2 * baseMs, 4 * baseMs, 8 * baseMs, 16 * baseMs, 32 * baseMs, capMs, capMs];
  assert.deepEqual(
    waits,
    ceilings.map((c) => c / 2),
    "the wait grows and is capped",
  );

  failing = false;
  timeouts.at(-1)!.fire();
  await settle();
  assert.equal(views.at(-1)?.synced, true);
  const count = timeouts.length;
  failing = true;
  // Events may have been lost: a fresh snapshot, which fails.
  status("reconnect");
  await settle();
  assert.equal(timeouts.length, count + 1);
  assert.equal(timeouts.at(-1)!.ms, baseMs / 2, "back to the base");
});
