/**
 * The staleness rule: an answer says it may be stale once its projection has
 * heard nothing from its bucket's stream for longer than --stale-after, and
 * says since when, for how long, and at which revision; a page kept by the
 * answer cache gets it written in as it is sent, and is itself never changed.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Subject } from "rxjs";
import { staleness, staleJson } from "../../src/projections/staleness.js";
import { Hearing } from "../../src/projections/hearing.js";
import { Projection } from "../../src/projections/projection.js";
import { needsSpec } from "../../src/projections/bucket-specs.js";
import { memoryLogger } from "../../src/log.js";
import type { WatchEvent } from "../../src/streams/kv-watch.js";
import { STALE_ROOM, withStale } from "../../src/verb/stale-reply.js";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";

const T0 = Date.parse("2026-12-05T03:00:00.000Z");

describe("the staleness rule", () => {
  test("nothing is said while the stream was heard within --stale-after, the boundary included", () => {
    assert.equal(staleness(T0, T0, 5000, 7), undefined);
    assert.equal(staleness(T0, T0 + 5000, 5000, 7), undefined);
  });

  test("past it: since when it last heard (ISO, UTC, ms), how long ago, and the revision it holds", () => {
    assert.deepEqual(staleness(T0, T0 + 5001, 5000, 7), { since: "2026-12-05T03:00:00.000Z", silentMs: 5001, revision: 7 });
    assert.deepEqual(staleness(T0 + 123, T0 + 60_123, 5000, 0), { since: "2026-12-05T03:00:00.123Z", silentMs: 60_000, revision: 0 });
  });

  test("a clock stepped back never gives a negative silence, nor a stale answer", () => {
    assert.equal(staleness(T0, T0 - 10_000, 5000, 7), undefined);
  });

  test("never stale without a --stale-after (a projection made outside the service)", () => {
    assert.equal(staleness(0, T0, Number.POSITIVE_INFINITY, 7), undefined);
  });
});

describe("a projection's hearing", () => {
  test("every event of its watch but a resume is news from the stream; silence past --stale-after is stale, at the revision it holds", () => {
    let now = T0;
    const watch = new Subject<WatchEvent>();
    const p = new Projection(needsSpec, memoryLogger("error").log, undefined, { clock: () => now, staleAfterMs: 1000 });
    p.connect(watch);
    watch.next({ type: "entry", entry: { operation: "PUT", key: "n1.web.config.port", revision: 3, value: new TextEncoder().encode("1") } });
    watch.next({ type: "synced", lastSeq: 3 });
    assert.equal(p.hearing.at, T0);
    now += 1500;
    assert.deepEqual(p.staleness(), { since: new Date(T0).toISOString(), silentMs: 1500, revision: 3 });
    assert.deepEqual(p.stats().stale, p.staleness());
    assert.equal(p.stats().heardAt, new Date(T0).toISOString());
    // A resume is no news: the watch lost its consumer.
    watch.next({ type: "resuming", reason: "the connection came back", fromRevision: 3 });
    assert.ok(p.staleness() !== undefined);
    // A heartbeat or a read of the stream's state is.
    watch.next({ type: "heard" });
    assert.equal(p.hearing.at, now);
    assert.equal(p.staleness(), undefined);
    assert.equal(p.stats().stale, undefined);
    assert.ok(!("stale" in p.stats()), "absent, not undefined, in $SRV.STATS");
  });

  test("silent from the watch's start until it first hears", () => {
    let now = T0;
    const h = new Hearing({ clock: () => now, staleAfterMs: 1000 });
    now += 999;
    assert.equal(h.staleness(0), undefined);
    now += 2;
    assert.equal(h.staleness(0)?.silentMs, 1001);
  });
});

describe("stale written into a page as it is sent", () => {
  const page = Buffer.from(`{"what":"needs","revision":42,"entries":[{"key":"n1.web.config.port","value":1,"revision":42}],"outOfShape":[],"next":"x"}`);
  const stale = { since: "2026-12-05T03:00:00.000Z", silentMs: 61_234, revision: 42 };

  test("after the revision it qualifies; the rest of the page as it was", () => {
    const out = withStale(page, stale);
    assert.equal(
      out.toString(),
      `{"what":"needs","revision":42,"stale":{"since":"2026-12-05T03:00:00.000Z","silentMs":61234,"revision":42},"entries":[{"key":"n1.web.config.port","value":1,"revision":42}],"outOfShape":[],"next":"x"}`,
    );
    assert.deepEqual((JSON.parse(out.toString()) as { stale: unknown }).stale, stale);
  });

  test("the page given (perhaps the answer cache's) is never written", () => {
    const kept = Buffer.from(page);
    withStale(page, stale);
    assert.deepEqual(page, kept);
  });

  test("the room a page keeps for it holds the largest it can be", () => {
    const largest = { since: "+275760-09-13T00:00:00.000Z", silentMs: Number.MAX_SAFE_INTEGER, revision: Number.MAX_SAFE_INTEGER };
    assert.ok(`,"stale":${staleJson(largest)}`.length <= STALE_ROOM);
  });

  test("a page whose head is not found is an error, never an answer that hides it may be stale", () => {
    assert.throws(
      () => withStale(Buffer.from(`{"error":{}}`), stale),
      (e) => e instanceof ProvisionerError && e.status === 500,
    );
  });
});
