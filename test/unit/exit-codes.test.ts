import { test } from "node:test";
import assert from "node:assert/strict";
import { ExitCodes, exitCodeOf } from "../../src/cli/exit-codes.js";
import { Failure, FailureCodes, type FailureKind } from "../../src/failure.js";
import { NoAnswerError, VerbError } from "mesh-provisioner-client";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";

test("each failure that ends a command has its own exit status; the others end with 1", () => {
  const got = Object.fromEntries((Object.keys(FailureCodes) as FailureKind[]).map((k) => [k, exitCodeOf(new Failure(k, "x"))]));
  assert.deepEqual(got, { CONFIG: 2, CONNECT: 3, BUCKET: 4, WATCH: 1, REGISTRY_WRITE: 1, EMBEDDED_SERVER: 7 });
});

test("the verb not answering, or answering with a service error, ends a command with 8", () => {
  assert.equal(exitCodeOf(new NoAnswerError("mesh-provisioner.provisioning", new Error("no responders"))), ExitCodes.VERB);
  for (const status of [400, 403, 500, 503, 504]) assert.equal(exitCodeOf(new VerbError(status, "refused")), ExitCodes.VERB);
});

test("a protocol error raised before asking, and anything else, ends a command with 1", () => {
  assert.equal(exitCodeOf(new ProvisionerError("BAD_REQUEST", "not a plain token")), ExitCodes.FAILED);
  assert.equal(exitCodeOf(new Error("boom")), ExitCodes.FAILED);
  assert.equal(exitCodeOf("a string"), ExitCodes.FAILED);
});

test("the exit statuses are distinct, and 5 and 6 stay retired", () => {
  const statuses = Object.values(ExitCodes);
  assert.equal(new Set(statuses).size, statuses.length);
  assert.ok(!statuses.includes(5 as never) && !statuses.includes(6 as never));
});

test("a client's service error carries the protocol's code for its status", () => {
  assert.deepEqual(
    [400, 403, 500, 503, 504, 418].map((s) => new VerbError(s, "x").code),
    ["E_BAD_REQUEST", "E_FORBIDDEN", "E_INTERNAL", "E_NOT_SYNCED", "E_REVISION_TIMEOUT", "E_SERVICE"],
  );
});
