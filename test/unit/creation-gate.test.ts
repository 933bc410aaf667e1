import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CreationGate } from "../../src/streams/creation-gate.js";

describe("the consumer creation gate", () => {
  test("lets one creation through at a time", async () => {
    const gate = new CreationGate();
    const first = await gate.enter(10);
    let second = false;
    const p = gate.enter(5).then((leave) => {
      second = true;
      return leave;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(second, false, "the second waits while the first is under way");
    assert.equal(gate.queued, 1);
    first();
    (await p)();
    assert.equal(second, true);
    assert.equal(gate.queued, 0);
  });

  test("serves the waiting creation with the fewest messages first, ties in arrival order", async () => {
    const gate = new CreationGate();
    const hold = await gate.enter(0);
    const order: string[] = [];
    const waits = [
      ["needs", 1_000_000],
      ["applied", 0],
      ["collect", 0],
      ["registry", 13],
    ].map(([name, weight]) =>
      gate.enter(weight as number).then((leave) => {
        order.push(name as string);
        leave();
      }),
    );
    hold();
    await Promise.all(waits);
    assert.deepEqual(order, ["applied", "collect", "registry", "needs"]);
  });

  test("leaving twice lets only one more through", async () => {
    const gate = new CreationGate();
    const a = await gate.enter(1);
    const entered: number[] = [];
    const b = gate.enter(2).then((l) => (entered.push(2), l));
    const c = gate.enter(3).then((l) => (entered.push(3), l));
    a();
    a();
    await b;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(entered, [2]);
    (await b)();
    (await c)();
    assert.deepEqual(entered, [2, 3]);
  });
});
