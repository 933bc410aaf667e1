/**
 * The chaos run's site, pure parts: the plan of the site's link cuts (never
 * two at once, healed in time, numbered after the cluster's faults, the same
 * for a seed) and the site's check (a reply during a cut must say stale).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { planFaults } from "../../chaos/schedule.js";
import { checkSite, STALE_BY_MS } from "../../chaos/site.js";
import type { FaultRecord, ReadRecord } from "../../chaos/history.js";

const OPTS = { seed: 42, durationMs: 90_000, ttlMs: 2000, slots: 3, nodes: ["n1", "n2"], floodKeys: 10 };

describe("chaos: the site", () => {
  test("the site's link cuts come after the cluster's faults, never overlap, and end before the run does", () => {
    const plan = planFaults(OPTS);
    assert.deepEqual(planFaults(OPTS), plan);
    const cuts = plan.filter((f) => f.kind === "cut-site-link");
    const others = plan.filter((f) => f.kind !== "cut-site-link");
    assert.ok(cuts.length >= 2, `cuts planned: ${cuts.length}`);
    assert.deepEqual(
      others.map((f) => f.id),
      others.map((_, i) => i),
      "the cluster's faults keep their numbers",
    );
    assert.ok(
      cuts.every((c) => c.id >= others.length),
      "the cuts are numbered after them",
    );
    for (const [i, c] of cuts.entries()) {
      assert.ok(c.at + c.durationMs <= OPTS.durationMs - 4000, `cut ${c.id} healed in time`);
      const next = cuts[i + 1];
      if (next) assert.ok(c.at + c.durationMs < next.at, `cuts ${c.id} and ${next.id} overlap`);
    }
  });

  const cut: FaultRecord = { id: 9, kind: "cut-site-link", plannedAt: 1000, startedAt: 1000, healedAt: 9000 };
  const read = (id: number, sentAt: number, stale: boolean, reader = "site"): ReadRecord => ({
    id,
    reader,
    what: "needs",
    node: "n1",
    sentAt,
    doneAt: sentAt + 5,
    status: 200,
    revision: 7,
    entries: [],
    ...(stale ? { stale: { since: "2026-01-01T00:00:00.000Z", silentMs: 2000, revision: 7 } } : {}),
  });

  test("a reply during a cut, once the site could have noticed, without stale fails the check; with stale it passes", () => {
    const early = read(1, 1000 + STALE_BY_MS - 100, false);
    // Answered after the mend (a minRevision's wait): it need not say stale.
    const late = { ...read(4, 8000, false), doneAt: 9200 };
    const ok = checkSite({ faults: [cut], reads: [early, read(2, 5000, true), read(3, 9500, false), late] }, []);
    assert.equal(ok.status, "pass", JSON.stringify(ok));
    const bad = checkSite({ faults: [cut], reads: [read(2, 5000, false)] }, []);
    assert.equal(bad.status, "fail");
    assert.match(bad.violations[0]!, /without stale/);
  });

  test("a final reply still stale, or the site's instance exiting on its own, fails the check", () => {
    assert.equal(checkSite({ faults: [], reads: [read(1, 100, true, "site-final")] }, []).status, "fail");
    assert.equal(checkSite({ faults: [], reads: [] }, ["the site's instance exited"]).status, "fail");
  });
});
