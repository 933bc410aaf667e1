import { test } from "node:test";
import assert from "node:assert/strict";
import { Subject } from "rxjs";
import { Projection } from "../../src/projections/projection.js";
import { registrySpec } from "../../src/projections/bucket-specs.js";
import { memoryLogger } from "../../src/log.js";
import { Reconciler } from "../../src/reconcile/loop.js";
import { desiredRegistry, type RegistryValue } from "../../src/reconcile/registry.js";
import { knownKinds } from "mesh-provisioner-client/keys";
import type { RegistryWriter } from "../../src/reconcile/apply.js";
import type { WatchEvent } from "../../src/streams/kv-watch.js";
import { BACKOFF } from "mesh-provisioner-client/backoff";
import { holdTimeouts, settle } from "../../client/test/helpers/timeouts.js";

const table: RegistryValue[] = [{ kind: "ssh", module: "mesh-ssh" }];

test("failed registry writes are retried after waits by the retry policy, from the base again after a run with no failed write", async (t) => {
  const timeouts = holdTimeouts(t);
  // The lowest draw: each wait is exactly half its ceiling.
  t.mock.method(Math, "random", () => 0);
  const watch = new Subject<WatchEvent>();
  const registry = new Projection(registrySpec(knownKinds(table)), memoryLogger("error").log);
  registry.connect(watch);
  watch.next({ type: "synced", lastSeq: 0 });
  let failing = true;
  let writes = 0;
  const writer: RegistryWriter = {
    put: async () => {
      writes++;
      if (failing) throw new Error("no responders");
      return 0;
    },
    delete: async () => 0,
  };
  const r = new Reconciler({ registry, writer, desired: desiredRegistry(table), intervalMs: 3_600_000, driftDelayMs: 250, log: memoryLogger("error").log });
  const { baseMs } = BACKOFF.reconcile;

  await r.run("manual");
  for (const ceiling of [baseMs, 2 * baseMs, 4 * baseMs]) {
    const retry = timeouts.at(-1)!;
    assert.equal(retry.ms, ceiling / 2, "the wait grows with the failures");
    const before = writes;
    retry.fire();
    await settle();
    assert.equal(writes, before + 1, "the retry ran");
  }

  failing = false;
  timeouts.at(-1)!.fire();
  await settle();
  const count = timeouts.length;
  assert.equal(r.writes.created, 1);
  failing = true;
  await r.run("manual");
  assert.equal(timeouts.length, count + 1, "a failed run after it schedules one retry");
  assert.equal(timeouts.at(-1)!.ms, baseMs / 2, "back to the base");
  await r.stop();
  assert.equal(timeouts.at(-1)!.cleared, true, "stop cancels the retry");
});
