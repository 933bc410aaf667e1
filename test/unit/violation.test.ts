import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { errors, RequestError } from "@nats-io/nats-core";
import { describeViolation, forgetViolations, noteViolation, permissionsError, violationIn } from "../../src/permissions/violation.js";
import { wrapFailure } from "../../src/failure.js";
import { exitCodeOf } from "../../src/cli/exit-codes.js";

/** What nats-core makes of the server's -ERR line. */
const refused = (line: string): Error => errors.PermissionViolationError.parse(line) as Error;
const SUB = `Permissions Violation for Subscription to "_INBOX.Ab12Cd.*"`;
const PUB = `Permissions Violation for Publish to "$JS.API.INFO"`;

afterEach(() => forgetViolations());

test("a violation is found along the causes of what failed: a request's RequestError, wrapped again by the service", () => {
  const inRequest = new RequestError(SUB, { cause: refused(SUB) });
  const wrapped = wrapFailure("BUCKET", "cannot create the bucket", inRequest);
  assert.deepEqual(violationIn(wrapped), { operation: "subscribe", subject: "_INBOX.Ab12Cd.*" });
  assert.deepEqual(violationIn(refused(PUB)), { operation: "publish", subject: "$JS.API.INFO" });
  assert.deepEqual(violationIn(new Error(`nats: ${PUB}`)), { operation: "publish", subject: "$JS.API.INFO" }, "the server's words in a message");
  assert.equal(violationIn(new Error("TIMEOUT")), undefined);
  assert.equal(violationIn(undefined), undefined);
});

test("a refused inbox names the subject, the prefix in use and the flag that changes it", () => {
  const text = describeViolation({ operation: "subscribe", subject: "_INBOX.Ab12Cd.*" });
  assert.match(text, /^permissions violation: the server refused subscribe on _INBOX\.Ab12Cd\.\*; /);
  assert.match(text, /inbox prefix _INBOX,/);
  assert.match(text, /--inbox-prefix \(or NATS_INBOX_PREFIX\)/);
  assert.match(text, /serve uses the provisioner's, _INBOX_mesh-provisioner; query, dump and verify the operator's, _INBOX_mesh-operator\)$/);
  const custom = describeViolation({ operation: "subscribe", subject: "my.inbox.X1.7" }, "my.inbox");
  assert.match(custom, /inbox prefix my\.inbox,/);
});

test("any other refused subject points at the user's grant", () => {
  const text = describeViolation({ operation: "publish", subject: "$JS.API.STREAM.CREATE.KV_x" });
  assert.match(text, /^permissions violation: the server refused publish on \$JS\.API\.STREAM\.CREATE\.KV_x; the user's grant must allow it/);
  assert.match(text, /permissions --role provisioner` prints the least grant the service works under, `--role operator` the one of query, dump and verify$/);
  assert.doesNotMatch(text, /--inbox-prefix/);
});

test("permissionsError: a CONNECT error (exit 3) in place of what failed, or nothing when no violation is behind it", () => {
  const e = permissionsError(new RequestError(PUB, { cause: refused(PUB) }));
  assert.equal(e?.code, "E_CONNECT");
  assert.equal(exitCodeOf(e), 3);
  assert.equal(permissionsError(new Error("timeout")), undefined);
  assert.equal(permissionsError(new Error("timeout"), { orSeen: true }), undefined, "nothing seen yet");
});

test("a violation the connection was told of explains a later failure, only when asked to, and only the first is kept", () => {
  noteViolation(new Error("some other protocol error"));
  noteViolation(refused(`Permissions Violation for Subscription to "_INBOX_mesh-provisioner.Q.1"`), "_INBOX_mesh-provisioner");
  noteViolation(refused(PUB), "_INBOX_mesh-provisioner");
  assert.equal(permissionsError(new Error("TIMEOUT")), undefined);
  const e = permissionsError(new Error("TIMEOUT"), { orSeen: true });
  assert.match(e?.message ?? "", /^permissions violation: the server refused subscribe on _INBOX_mesh-provisioner\.Q\.1; /);
  assert.match(e?.message ?? "", /inbox prefix _INBOX_mesh-provisioner,/);
  assert.match(e?.message ?? "", /\(what failed then: TIMEOUT\)$/);
});
