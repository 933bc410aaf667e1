import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ViewState } from "../src/view-state.js";
import { covers, feedSubjects, filtersOf } from "../src/narrowing.js";
import { appliedKey, collectKey, decodeCollection, encodeCollection, needsKey } from "../src/keys.js";
import type { AnyEntry, FeedEvent } from "../src/protocol/messages.js";

const KEYS = ["a", "b", "c", "d", "e", "f"].map((k) => `n1.web.config.${k}`);
const entry = (key: string, value: number, revision: number): AnyEntry => ({
  key,
  value,
  revision,
  node: "n1",
  module: "web",
  kind: "config",
  name: key.slice(-1),
});

describe("a watch's view", () => {
  test("property: a snapshot of pages answered at different revisions, then the feed's events (some held while it was taken), ends equal to the bucket", () => {
    fc.assert(
      fc.property(
        // The writes: key index and a value, or a delete; revision = position + 1.
        fc.array(fc.tuple(fc.integer({ min: 0, max: KEYS.length - 1 }), fc.option(fc.integer({ min: 0, max: 99 }), { freq: 3 })), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.nat(),
        (writes, pageCuts, subscribeAt, heldUntil) => {
          const n = writes.length;
          const stateAt = (rev: number): Map<string, AnyEntry> => {
            const m = new Map<string, AnyEntry>();
            writes.slice(0, rev).forEach(([k, v], i) => {
              const key = KEYS[k] as string;
              if (v === null) m.delete(key);
              else m.set(key, entry(key, v, i + 1));
            });
            return m;
          };
          // The client subscribes at s, then pages are answered at s <= r1 <= r2 <= ... <= n.
          const s = subscribeAt % (n + 1);
          const revs = pageCuts.map((c) => s + (c % (n - s + 1))).sort((a, b) => a - b);
          const ranges = revs.map((_, i) => KEYS.filter((_, k) => k % revs.length === i));
          const entries: AnyEntry[] = [];
          revs.forEach((r, i) => {
            for (const [key, e] of stateAt(r)) if ((ranges[i] as string[]).includes(key)) entries.push(e);
          });
          const events: FeedEvent[] = writes.slice(s).map(([k, v], i) => {
            const key = KEYS[k] as string;
            const revision = s + i + 1;
            return v === null ? { what: "needs", op: "delete", key, revision } : { what: "needs", op: "put", key, revision, entry: entry(key, v, revision) };
          });
          const held = heldUntil % (events.length + 1);
          const view = new ViewState();
          view.beginSnapshot();
          for (const ev of events.slice(0, held)) view.apply(ev);
          view.endSnapshot({ what: "needs", revision: Math.max(...revs), entries, outOfShape: [] }, Math.min(...revs));
          for (const ev of events.slice(held)) view.apply(ev);
          const got = view.view();
          assert.deepEqual([...got.entries.entries()].sort(), [...stateAt(n).entries()].sort());
          assert.equal(got.synced, true);
          assert.equal(got.revision, Math.max(n, ...revs));
        },
      ),
      { numRuns: 500 },
    );
  });

  test("it is not synced while a snapshot is taken, and events meanwhile wait for it", () => {
    const view = new ViewState();
    assert.equal(view.view().synced, false);
    view.beginSnapshot();
    assert.equal(view.apply({ what: "needs", op: "put", key: KEYS[0] as string, revision: 5, entry: entry(KEYS[0] as string, 1, 5) }), false);
    assert.equal(view.view().entries.size, 0);
    view.endSnapshot({ what: "needs", revision: 4, entries: [], outOfShape: [] }, 4);
    assert.equal(view.view().synced, true);
    assert.equal(view.view().entries.size, 1);
  });

  test("a fresh snapshot older than the view is refused, and the view stays as it was", () => {
    const view = new ViewState();
    view.endSnapshot({ what: "needs", revision: 10, entries: [entry(KEYS[0] as string, 1, 10)], outOfShape: [] }, 10);
    view.beginSnapshot();
    assert.equal(view.endSnapshot({ what: "needs", revision: 7, entries: [], outOfShape: [] }, 7), false);
    assert.equal(view.view().entries.size, 1);
    assert.equal(view.view().revision, 10);
  });

  test("a key out of shape comes and goes with its events", () => {
    const view = new ViewState();
    view.endSnapshot({ what: "needs", revision: 3, entries: [], outOfShape: [{ key: "n1.web", reason: "needs keys have 4 tokens" }] }, 3);
    assert.equal(view.view().outOfShape.size, 1);
    assert.equal(view.apply({ what: "needs", op: "delete", key: "n1.web", revision: 4 }), true);
    assert.equal(view.view().outOfShape.size, 0);
    assert.equal(view.apply({ what: "needs", op: "delete", key: "n1.web", revision: 5 }), false, "a delete of a key not held changes nothing");
  });
});

describe("what a request covers", () => {
  test("entries by their fields, keys out of shape by their readable tokens, deletes by their key", () => {
    const f = filtersOf({ what: "needs", node: "n1", module: "web", minRevision: 3, limit: 5 });
    assert.deepEqual(f, { node: "n1", module: "web" });
    assert.equal(covers("needs", f, { key: "n1.web.config.a", entry: entry("n1.web.config.a", 1, 1) }), true);
    assert.equal(covers("needs", f, { key: "n1.api.config.a", entry: { ...entry("n1.api.config.a", 1, 1), module: "api" } }), false);
    assert.equal(covers("needs", f, { key: "n1.web.config" }), true, "out of shape, nothing readable contradicts");
    assert.equal(covers("needs", f, { key: "n2.web.config" }), false);
    assert.equal(covers("needs", f, { key: "n1.api.config.a" }), false, "a delete of another module's key");
    assert.equal(covers("collect", { collection: "ssh keys" }, { key: `n1.${encodeCollection("ssh keys")}.web` }), true, "collections by their decoded name");
  });

  test("a node narrows the feed subscription to its own keys", () => {
    assert.deepEqual(feedSubjects("needs", { node: "n1" }), ["mesh-provisioner.feed.needs.n1.>", "mesh-provisioner.feed.needs.n1"]);
    assert.deepEqual(feedSubjects("registry", {}), ["mesh-provisioner.feed.registry.>"]);
  });
});

describe("a node's keys", () => {
  test("are built from checked tokens, collections =hex escaped", () => {
    assert.equal(needsKey("n1", "web", "config", "port"), "n1.web.config.port");
    assert.equal(appliedKey("n1", "web"), "n1.web");
    assert.equal(collectKey("n1", "ssh keys", "web"), "n1.ssh=20keys.web");
    assert.equal(decodeCollection("ssh=20keys"), "ssh keys");
    assert.equal(decodeCollection(encodeCollection("shell:zsh:normal")), "shell:zsh:normal");
  });

  test("refuse a token that would change the key's shape, saying which", () => {
    assert.throws(() => needsKey("n1", "web.api", "config", "port"), /module "web.api" cannot be a key token/);
    assert.throws(() => appliedKey("n*", "web"), /node "n\*"/);
    assert.throws(() => needsKey("n1", "web", "config", ""), /name "" cannot be a key token: empty token/);
    assert.throws(() => collectKey("n1", "", "web"), /must not be empty/);
    assert.throws(() => decodeCollection("ssh=2"), /not an escaped collection name/);
  });
});

test("a view once handed out never changes: the next change copies the maps first", () => {
  const state = new ViewState("needs");
  const entry = (key: string, revision: number) => ({
    key,
    node: "n1",
    module: "web",
    kind: "config",
    name: key.split(".")[3]!,
    value: revision,
    revision,
    answered: true,
  });
  state.endSnapshot({ what: "needs", revision: 5, entries: [entry("n1.web.config.a", 5)], outOfShape: [] } as never, 5);
  const before = state.view();
  const keysBefore = [...before.entries.keys()];
  assert.equal(state.apply({ what: "needs", op: "put", key: "n1.web.config.b", revision: 6, entry: entry("n1.web.config.b", 6) } as never), true);
  assert.equal(state.apply({ what: "needs", op: "delete", key: "n1.web.config.a", revision: 7 } as never), true);
  assert.deepEqual([...before.entries.keys()], keysBefore, "the view handed out still holds what it held");
  assert.equal(before.revision, 5);
  const after = state.view();
  assert.deepEqual([...after.entries.keys()], ["n1.web.config.b"]);
  assert.notEqual(after.entries, before.entries);
  // With no view handed out since, changes write in place: the maps are copied once per view taken, not once per change.
  state.apply({ what: "needs", op: "put", key: "n1.web.config.c", revision: 8, entry: entry("n1.web.config.c", 8) } as never);
  const third = state.view();
  state.apply({ what: "needs", op: "put", key: "n1.web.config.d", revision: 9, entry: entry("n1.web.config.d", 9) } as never);
  assert.deepEqual([...third.entries.keys()], ["n1.web.config.b", "n1.web.config.c"]);
  assert.deepEqual([...after.entries.keys()], ["n1.web.config.b"]);
});

test("an event that changes nothing copies nothing and reports no change", () => {
  const state = new ViewState("needs");
  state.endSnapshot({ what: "needs", revision: 5, entries: [], outOfShape: [] } as never, 5);
  const v = state.view();
  assert.equal(state.apply({ what: "needs", op: "delete", key: "n1.web.config.zzz", revision: 6 } as never), false);
  assert.equal(state.view().entries, v.entries, "the same maps: nothing was copied");
});
