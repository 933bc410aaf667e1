import { test } from "node:test";
import assert from "node:assert/strict";
import { watchView } from "../src/watch.js";
import type { Answer } from "../src/protocol/messages.js";
import type { HolderValue, StatsReply } from "../src/protocol/stats.js";
import { settle } from "./helpers/timeouts.js";
import { fakeConnection } from "./helpers/fake-connection.js";

/** One instance's `$SRV.STATS` reply naming the seat's holder. */
function reply(id: string, holder: HolderValue | null): StatsReply {
  return { id, endpoints: [{ data: { seat: { instance: id, isHolder: holder?.instance === id, holder } } }] };
}

const a1: HolderValue = { instance: "a", host: "h", pid: 1, since: "2026-12-04T00:00:00.000Z" };
const a2: HolderValue = { ...a1, since: "2026-12-04T00:00:05.000Z" };
const b1: HolderValue = { instance: "b", host: "h", pid: 2, since: "2026-12-04T00:00:06.000Z" };

test("a client watch takes a fresh snapshot whenever the feed's hold changes: another holder, or the same instance taking the seat anew", async (t) => {
  let check: (() => void) | undefined;
  t.mock.method(globalThis, "setInterval", (fn: () => void) => {
    check = fn;
    return { unref: () => undefined };
  });
  t.mock.method(globalThis, "clearInterval", () => undefined);
  const { nc, setStats } = fakeConnection();
  let asked = 0;
  const snapshot = async (): Promise<{ answer: Answer<"registry">; lowest: number }> => {
    asked++;
    return { answer: { what: "registry", revision: 7, entries: [], outOfShape: [] }, lowest: 7 };
  };
  const synced: boolean[] = [];
  const sub = watchView(nc, snapshot, { what: "registry" }, { seatCheckMs: 1000 }).subscribe((v) => synced.push(v.synced));
  t.after(() => sub.unsubscribe());
  const look = async (): Promise<void> => {
    check?.();
    await settle(10);
  };

  setStats([reply("a", a1), reply("b", a1)]);
  await settle(10);
  assert.equal(asked, 1, "the first snapshot");
  await look();
  await look();
  assert.equal(asked, 1, "the same hold: nothing was missed");

  // The holder lost the seat and took it again between two looks: events from the gap were never published.
  setStats([reply("a", a2), reply("b", a2)]);
  await look();
  assert.equal(asked, 2, "the same instance's new hold costs a fresh snapshot");

  setStats([reply("a", b1), reply("b", b1)]);
  await look();
  assert.equal(asked, 3, "another holder costs a fresh snapshot");

  // Nobody holds it: the view is no longer known to be current, and no snapshot is asked until a holder is back.
  setStats([reply("a", null), reply("b", null)]);
  await look();
  assert.equal(asked, 3);
  assert.equal(synced.at(-1), false);
  setStats([reply("a", b1), reply("b", b1)]);
  await look();
  assert.equal(asked, 4);
  assert.equal(synced.at(-1), true);

  // No instance answers: nothing is concluded.
  setStats([]);
  await look();
  assert.equal(asked, 4);
  assert.equal(synced.at(-1), true);
});
