/** `query`'s table for people: a stale answer says so under its heading, a current one does not. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Answer } from "mesh-provisioner-client";
import { formatAnswer } from "../../src/cli/table.js";

const answer: Answer<"applied"> = {
  what: "applied",
  revision: 7,
  entries: [{ key: "n1.web", node: "n1", module: "web", value: { version: "1.4.2" }, revision: 7 }],
  outOfShape: [],
};

test("a current answer's table has no staleness line", () => {
  const out = formatAnswer(answer);
  assert.match(out, /^applied at revision 7: 1 entry\nNODE/);
  assert.doesNotMatch(out, /stale/);
});

test("a stale answer's table says, under its heading, since when its instance heard nothing and at which revision it is", () => {
  const out = formatAnswer({ ...answer, stale: { since: "2026-12-05T03:14:07.512Z", silentMs: 61_250, revision: 7 } });
  const [heading, line] = out.split("\n");
  assert.equal(heading, "applied at revision 7: 1 entry");
  assert.equal(
    line,
    "may be stale: the answering instance had heard nothing from the bucket's stream for 61 s (since 2026-12-05T03:14:07.512Z); this is the bucket at revision 7",
  );
});
