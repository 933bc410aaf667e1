import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { editCommand } from "../../src/streams/buckets.js";

describe("the command an operator runs where the grant refused the service's update", () => {
  test("names the stream and each setting the service would have set", () => {
    assert.equal(
      editCommand("KV_mesh-provisioner_needs", { max_bytes: 1073741824, max_msg_size: 65536, allow_rollup_hdrs: false }),
      "nats stream edit KV_mesh-provisioner_needs --max-bytes=1073741824 --max-msg-size=65536 --no-allow-rollup --force",
    );
  });

  test("leaves out what needs no change", () => {
    assert.equal(editCommand("KV_mesh-provisioner_seat", { max_bytes: 16777216 }), "nats stream edit KV_mesh-provisioner_seat --max-bytes=16777216 --force");
    assert.equal(editCommand("KV_x", { allow_rollup_hdrs: false }), "nats stream edit KV_x --no-allow-rollup --force");
  });
});
