import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { instancesJson, reusing } from "../../src/http/instances.js";
import type { StatsReply } from "mesh-provisioner-client/protocol/stats.js";

const STALE = { since: "2026-12-05T03:14:07.512Z", silentMs: 61_250, revision: 42 };

const reply = (id: string, instance: string, isHolder: boolean, needsRevision: number, lag: number | null, stale?: typeof STALE): StatsReply => ({
  id,
  endpoints: [
    {
      data: {
        projections: {
          needs: {
            what: "needs",
            bucket: "b",
            revision: needsRevision,
            entries: 5,
            outOfShape: 0,
            synced: true,
            everSynced: true,
            lag,
            ...(stale ? { stale } : {}),
          },
        },
        requests: 3,
        errors: 0,
        seat: { holder: null, isHolder, instance },
        checkpoints: { needs: { start: "checkpoint", loadedRevision: 40, fallbacks: {}, written: 0, bytesWritten: 0, failed: 0 } },
      },
    },
  ],
});

describe("the instances page's data", () => {
  test("each instance in order of id, the holder and this one marked, each projection's lag and distance behind the furthest", () => {
    const got = instancesJson([reply("B", "host-2", false, 42, 8), reply("A", "host-1", true, 50, 0)], "host-2");
    assert.equal(got.holders, 1);
    assert.equal(got.furthest.needs, 50);
    assert.deepEqual(
      got.instances.map((i) => [i.id, i.instance, i.isHolder, i.self]),
      [
        ["A", "host-1", true, false],
        ["B", "host-2", false, true],
      ],
    );
    assert.deepEqual(got.instances[1]?.projections.needs, {
      revision: 42,
      entries: 5,
      outOfShape: 0,
      synced: true,
      lag: 8,
      staleSince: null,
      behindFurthest: 8,
      start: { from: "checkpoint", revision: 40, reason: undefined },
    });
  });

  test("a stale projection says since when it heard nothing from its stream", () => {
    const got = instancesJson([reply("S", "site-1", false, 42, 0, STALE)], "site-1");
    assert.equal(got.instances[0]?.projections.needs?.staleSince, STALE.since);
  });

  test("a reply without the verb's data is listed, with nothing known about it", () => {
    const got = instancesJson([{ id: "X" }], "me");
    assert.deepEqual(got.instances, [{ id: "X", instance: null, isHolder: false, self: false, requests: null, errors: null, projections: {} }]);
  });

  test("replies are reused for a period, and a failed ask is asked again", async () => {
    let asked = 0;
    let t = 0;
    let fail = false;
    const read = reusing(
      async () => {
        asked++;
        if (fail) throw new Error("no bus");
        return asked;
      },
      1_000,
      () => t,
    );
    assert.equal(await read(), 1);
    t = 500;
    assert.equal(await read(), 1);
    t = 1_000;
    fail = true;
    await assert.rejects(read());
    await Promise.resolve();
    fail = false;
    assert.equal(await read(), 3);
  });
});
