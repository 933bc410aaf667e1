import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { NatsConnection } from "@nats-io/nats-core";
import type { KV } from "@nats-io/kv";
import { filter, firstValueFrom, Observable as RxObservable, timeout } from "rxjs";
import { connectTo, startStack, FAST, type Stack } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";
import { memoryLogger } from "../../src/log.js";
import { startProvisioner, type Provisioner } from "../../src/main.js";
import { ProvisionerClient, VerbError, needsKey, collectKey, type Observable, type Subscription, type View } from "mesh-provisioner-client";

/** A watch as an RxJS Observable: its subscribe takes RxJS's subscriber as an observer. */
const rx = <T>(o: Observable<T>): RxObservable<T> =>
  new RxObservable<T>((s) => {
    const sub = o.subscribe(s);
    return () => sub.unsubscribe();
  });
import { Svcm } from "@nats-io/services";
import { SERVICE_NAME } from "mesh-provisioner-client/protocol/subjects.js";
import { PROTOCOL_VERSION } from "mesh-provisioner-client/protocol/version.js";

/** What the bucket holds now for `node`'s needs: key -> revision, read from the KV itself. */
async function bucketTruth(kv: KV, node: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const key of await kv.keys(`${node}.>`)) {
    const e = await kv.get(key);
    if (e !== null && e.operation === "PUT") out.set(key, e.revision);
  }
  return out;
}

const revisions = (v: View): Map<string, number> => new Map([...v.entries].map(([k, e]) => [k, e.revision]));

describe("the typed client (mesh-provisioner/client) against a real server and service", () => {
  let stack: Stack;
  let client: ProvisionerClient;
  let needs: KV;
  /** A connection a test opened for a second instance, closed after the stack. */
  let extraNc: NatsConnection | undefined;

  before(async () => {
    stack = await startStack({ seatTtlMs: 3000 });
    client = new ProvisionerClient(stack.client, { timeoutMs: 5000 });
    needs = await stack.kv("needs");
    for (let i = 0; i < 120; i++) await needs.put(needsKey("n1", `m${i % 6}`, "config", `k${i}`), JSON.stringify({ i }));
    for (let i = 0; i < 30; i++) await needs.put(needsKey("n2", "web", "config", `k${i}`), "{}");
  });
  after(async () => {
    await stack?.stop();
    await extraNc?.close().catch(() => undefined);
  });

  test("get merges every page: 120 needs in pages of 7 equal one unpaged answer, in key order; list yields the same", async () => {
    const last = await stack.lastSeq("needs");
    const paged = new ProvisionerClient(stack.client, { pageSize: 7 });
    let pages = 0;
    const all = await paged.get({ what: "needs", node: "n1", minRevision: last }, { onPage: () => pages++ });
    assert.equal(pages, Math.ceil(120 / 7));
    assert.equal(all.entries.length, 120);
    const one = await client.get({ what: "needs", node: "n1" });
    assert.deepEqual(
      all.entries.map((e) => e.key),
      one.entries.map((e) => e.key),
    );
    assert.deepEqual(
      all.entries.map((e) => e.key),
      [...all.entries.map((e) => e.key)].sort(),
    );
    assert.equal(all.entries[0]?.node, "n1");
    const listed: string[] = [];
    for await (const e of paged.list({ what: "needs", node: "n1" })) listed.push(e.key);
    assert.deepEqual(
      listed,
      one.entries.map((e) => e.key),
    );
  });

  test("minRevision: an answer includes the write it waited for", async () => {
    const rev = await needs.put(needsKey("n1", "m0", "secret", "fresh"), '{"length":32}');
    const a = await client.get({ what: "needs", node: "n1", module: "m0", minRevision: rev });
    assert.ok(a.revision >= rev);
    assert.deepEqual(a.entries.find((e) => e.key === "n1.m0.secret.fresh")?.value, { length: 32 });
  });

  test("service errors arrive as VerbError with the service's code", async () => {
    await assert.rejects(
      () => client.get({ what: "needs", node: "a.b" } as never),
      (err: unknown) => err instanceof VerbError && err.serviceCode === 400 && /plain token/.test(err.message) && !err.retryable,
    );
    // The service waits up to its --max-wait (5 s here) for minRevision: the client waits longer than that.
    const patient = new ProvisionerClient(stack.client, { timeoutMs: 15_000 });
    await assert.rejects(
      () => patient.get({ what: "applied", minRevision: 1_000_000 }),
      (err: unknown) => err instanceof VerbError && err.serviceCode === 504 && err.retryable,
    );
  });

  test("watch stays equal to the bucket through concurrent writes, a nats-server restart and a seat handover", { timeout: 120_000 }, async () => {
    const views: View<"needs">[] = [];
    let errors = 0;
    const sub: Subscription = client.watch({ what: "needs", node: "n1" }, { seatCheckMs: 500, onError: () => errors++ }).subscribe((v) => views.push(v));
    const equalToBucket = async (what: string): Promise<void> =>
      eventually(
        async () => {
          const v = views.at(-1);
          assert.ok(v?.synced, `${what}: the view is synced`);
          assert.deepEqual(revisions(v), await bucketTruth(needs, "n1"), what);
        },
        { timeoutMs: 20_000, intervalMs: 100, message: `the watch did not equal the bucket ${what}` },
      );
    const writes = async (round: number, n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        const key = needsKey(i % 3 === 0 ? "n2" : "n1", `m${i % 4}`, "config", `w${round}-${i % 25}`);
        if (i % 7 === 6) await needs.delete(key);
        else await needs.put(key, JSON.stringify({ round, i }));
      }
    };
    let extra: { nc: NatsConnection; p: Provisioner } | undefined;
    try {
      await firstValueFrom(
        rx(client.watch({ what: "needs", node: "n1" })).pipe(
          filter((v) => v.synced),
          timeout(10_000),
        ),
      );
      await equalToBucket("after the first snapshot");

      // Writes while the watch follows; n2's writes must not reach a watch of n1.
      await Promise.all([writes(1, 150), writes(2, 150)]);
      await equalToBucket("after concurrent writes");
      assert.ok([...(views.at(-1)?.entries.keys() ?? [])].every((k) => k.startsWith("n1.")));

      // The server restarts on its store; writes made after it is back are followed.
      await stack.server.restart();
      await eventually(async () => void (await needs.put(needsKey("n1", "m9", "config", "after-restart"), "{}")), { timeoutMs: 20_000 });
      await writes(3, 60);
      await equalToBucket("after a nats-server restart");

      // A second instance; the first stops: the seat changes hands and the new holder publishes the feed.
      const nc = (extraNc = await connectTo(stack.server));
      extra = { nc, p: await startProvisioner(nc, { ...FAST, seatTtlMs: 3000 }, memoryLogger("warn").log) };
      await extra.p.synced;
      await stack.stopService();
      await eventually(() => assert.equal(extra?.p.seat.isHolder, true), { timeoutMs: 15_000, message: "the second instance took the seat" });
      await writes(4, 60);
      await equalToBucket("after a seat handover");
      assert.ok(
        views.some((v) => !v.synced),
        "it said so while it took a fresh snapshot",
      );
    } finally {
      sub.unsubscribe();
      if (extra !== undefined) {
        // Hand back: the stack stops its own service in after().
        stack.provisioner = extra.p;
      }
    }
  });

  test("the verb's $SRV.INFO names the protocol version the client speaks", async () => {
    const infos = await new Svcm(stack.client).client({ strategy: "timer", maxWait: 1000 }).info(SERVICE_NAME);
    const found: unknown[] = [];
    for await (const i of infos) found.push(i.endpoints?.[0]?.metadata?.["protocol"]);
    assert.ok(found.length >= 1, "an instance answered $SRV.INFO");
    assert.deepEqual([...new Set(found)], [PROTOCOL_VERSION]);
  });

  test("a watch of the registry holds each kind under its key in the bucket, its kind", async () => {
    const v = await firstValueFrom(
      rx(client.watch({ what: "registry" }, { seatCheckMs: 0 })).pipe(
        filter((x) => x.synced),
        timeout(10_000),
      ),
    );
    const kinds = (await client.get({ what: "registry" })).entries.map((e) => e.kind);
    assert.equal(kinds.length, 13);
    assert.deepEqual([...v.entries.keys()].sort(), [...kinds].sort());
    assert.equal(v.entries.get("config")?.kind, "config");
  });

  test("key helpers build keys the service reads in shape", async () => {
    const collect = await stack.kv("collect");
    const rev = await collect.put(collectKey("n3", "ssh keys", "web"), "ssh-ed25519 AAAA…");
    const a = await client.get({ what: "collect", collection: "ssh keys", minRevision: rev });
    assert.deepEqual(
      a.entries.map((e) => [e.key, e.node, e.collection, e.contributor]),
      [["n3.ssh=20keys.web", "n3", "ssh keys", "web"]],
    );
    assert.deepEqual(a.outOfShape, []);
  });
});
