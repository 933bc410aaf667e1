/**
 * The shipped alert rules (deploy/prometheus/mesh-provisioner-rules.yaml)
 * proven live: a real Prometheus (Debian's, on a free loopback port with a
 * temporary store, scraping and evaluating every second) scrapes two real
 * `mesh-provisioner serve` processes on a real nats-server, and the test
 * reads the alerts from Prometheus's own API (/api/v1/alerts) while it makes
 * the faults happen.
 *
 * One change is made to the rules, and only one: every alert's `for:` is
 * rewritten to FOR_SECONDS (withShortFor in test/helpers/prometheus.ts). The
 * shipped `for:` durations are minutes, so that a restart or a handover
 * never pages; every expression, label and annotation is loaded exactly as
 * shipped, and the faults below meet those expressions for real.
 *
 * The instances:
 * - `a` (--seat-ttl 2s) is started first and takes the seat.
 * - `b` (--seat-ttl 30s) is the standby. A standby takes the seat only once
 *   it has seen the seat's key unchanged for a whole lease time, its own
 *   --seat-ttl (docs/architecture.md, "The seat"): after `a` is killed, `b`
 *   stays a standby for 30 s, scraped all along, seeing the seat vacant from
 *   60 % of that (18 s) until it takes it. That is how a mesh whose standby
 *   cannot take the seat looks from outside, with no process paused and no
 *   grant changed, and the seat alert resolves when `b` takes the seat.
 *
 * The phases run in order on the same mesh: healthy under load (nothing
 * fires), a key out of shape, the nats-server stopped and restarted, the
 * holder killed. Skipped without Debian's prometheus, except in CI (CI=true),
 * where its absence fails.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV } from "@nats-io/kv";
import { BUCKETS } from "mesh-provisioner-client/keys";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { connectTo } from "../helpers/stack.js";
import { startNatsServer, type RunningNatsServer } from "../helpers/nats-server.js";
import { Fleet, type LogLine } from "../helpers/processes.js";
import { spawnServed, type Served } from "../helpers/served.js";
import { eventually } from "../helpers/eventually.js";
import {
  alertRules,
  prometheusToolForTests,
  RULES_FILE,
  startPrometheus,
  withShortFor,
  type ActiveAlert,
  type RunningPrometheus,
} from "../helpers/prometheus.js";

/** Every alert's `for:` in the live copy: a few evaluations, so one odd scrape never fires an alert. */
const FOR_SECONDS = 2;
const HOLDER_TTL = "2s";
const STANDBY_TTL_S = 30;
const HOLDS = "this instance holds the seat: it writes the registry";
const LOAD_MS = 8000;

const { bin, skip } = prometheusToolForTests("prometheus");

const holdsLine = (l: LogLine): boolean => l.fields["component"] === "seat" && l.msg === HOLDS && l.fields["isHolder"] === true;
const hostPort = (s: Served): string => new URL(s.base).host;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const named = (alerts: readonly ActiveAlert[], name: string, labels: Record<string, string> = {}): ActiveAlert[] =>
  alerts.filter((a) => a.labels["alertname"] === name && Object.entries(labels).every(([k, v]) => a.labels[k] === v));
const firing = (alerts: readonly ActiveAlert[], name: string, labels: Record<string, string> = {}): ActiveAlert | undefined =>
  named(alerts, name, labels).find((a) => a.state === "firing");
const show = (alerts: readonly ActiveAlert[]): string =>
  JSON.stringify(
    alerts
      .map((a) => ({ ...a.labels, state: a.state }))
      .sort((x: Record<string, string>, y: Record<string, string>) => String(x["alertname"]).localeCompare(String(y["alertname"]))),
  );

describe("the shipped alert rules on a real Prometheus scraping two real instances", { skip, timeout: 180_000 }, () => {
  let server: RunningNatsServer;
  let fleet: Fleet;
  let a: Served;
  let b: Served;
  let prom: RunningPrometheus;
  let client: NatsConnection;
  let kv: Record<"needs" | "applied" | "collect", KV>;
  const started = Date.now();

  /** Poll Prometheus's alerts until `check` passes (it throws until then); bounded, Prometheus's log in the failure. */
  async function alertsUntil<T>(what: string, timeoutMs: number, check: (alerts: ActiveAlert[]) => T): Promise<T> {
    let last: ActiveAlert[] = [];
    try {
      return await eventually(
        async () => {
          last = await prom.alerts();
          return check(last);
        },
        { timeoutMs, intervalMs: 250, message: what },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\nalerts: ${show(last)}\nprometheus:\n${prom.logTail(10)}`, { cause: err });
    }
  }

  before(async () => {
    server = await startNatsServer();
    fleet = new Fleet({ server: server.url });
    a = await spawnServed(fleet, { name: "a", args: ["--seat-ttl", HOLDER_TTL] });
    await a.proc.waitForLine(holdsLine, 15_000, "a holds the seat");
    b = await spawnServed(fleet, { name: "b", args: ["--seat-ttl", `${STANDBY_TTL_S}s`] });
    // The instances first, then Prometheus's configuration naming their ports.
    prom = await startPrometheus(bin, { rules: withShortFor(readFileSync(RULES_FILE, "utf8"), FOR_SECONDS), targets: [hostPort(a), hostPort(b)] });
    client = await connectTo(server);
    const kvm = new Kvm(client);
    kv = { needs: await kvm.open(BUCKETS.needs), applied: await kvm.open(BUCKETS.applied), collect: await kvm.open(BUCKETS.collect) };
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    await prom?.stop();
    await fleet?.killAll();
    await server?.stop();
  });

  test("Prometheus loads every shipped rule and scrapes both instances ready, one holding the seat", async (t) => {
    const shipped = alertRules(readFileSync(RULES_FILE, "utf8")).map((r) => r.alert);
    await eventually(
      async () => {
        const groups = await prom.rules();
        const rules = groups.flatMap((g) => g.rules);
        assert.deepEqual(
          rules.map((r) => r.name),
          shipped,
        );
        for (const r of rules) assert.equal(r.health, "ok", `${r.name}: ${r.lastError ?? r.health}`);
        const targets = await prom.targets();
        assert.deepEqual(
          targets.map((x) => x.health),
          ["up", "up"],
          JSON.stringify(targets),
        );
        const [ready] = await prom.query("sum(mesh_provisioner_ready)");
        assert.equal(ready?.value[1], "2");
        const [held] = await prom.query("sum(mesh_provisioner_seat_held)");
        assert.equal(held?.value[1], "1");
      },
      { timeoutMs: 20_000, intervalMs: 250, message: "Prometheus scraping both instances with the rules loaded" },
    );
    // Before its first scrapes Prometheus sees no instance ready, which the live copy's 2 s for: can turn into a
    // firing MeshProvisionerNoInstanceReady (the shipped 2m cannot); once the instances are scraped, nothing fires.
    await alertsUntil("no alert firing once both instances are scraped", 10_000, (alerts) =>
      assert.deepEqual(
        alerts.filter((x) => x.state === "firing"),
        [],
      ),
    );
    t.diagnostic(`mesh and Prometheus up ${Date.now() - started} ms after the start`);
  });

  test("nothing fires on a healthy mesh under load: writes to every node bucket and verb requests to both instances", async (t) => {
    const t0 = Date.now();
    let writes = 0;
    let answered = 0;
    const failures: string[] = [];
    const load = async (): Promise<void> => {
      for (let i = 0; Date.now() - t0 < LOAD_MS; i++) {
        const node = `n${i % 25}`;
        const batch = [
          kv.needs.put(`${node}.web.config.k${i % 200}`, JSON.stringify({ i })),
          kv.applied.put(`${node}.web`, JSON.stringify({ version: i })),
          kv.collect.put(`${node}.shell.c${i % 50}`, JSON.stringify({ line: `export A=${i}` })),
          ...(["needs", "applied", "collect", "registry"] as const).map((what) =>
            client.request(VERB_SUBJECT, JSON.stringify(what === "registry" ? { what } : { what, node }), { timeout: 5000 }).then((m) => {
              const code = m.headers?.get("Nats-Service-Error-Code");
              if (code) failures.push(`${what}: ${code}`);
              else answered++;
            }),
          ),
        ];
        await Promise.all(batch);
        writes += 3;
        await sleep(10);
      }
    };
    const watch = async (): Promise<void> => {
      while (Date.now() - t0 < LOAD_MS + FOR_SECONDS * 1000 + 2000) {
        const alerts = await prom.alerts();
        assert.deepEqual(
          alerts.filter((x) => x.state === "firing"),
          [],
          `alerts firing on a healthy mesh: ${show(alerts)}`,
        );
        await sleep(500);
      }
    };
    await Promise.all([load(), watch()]);
    assert.deepEqual(failures, [], "the verb answered every request with 200");
    // Prometheus saw the load: the answers counted and the writes applied on both instances.
    const [asked] = await prom.query('sum(increase(mesh_provisioner_verb_requests_total{status="200"}[15s]))');
    assert.ok(Number(asked?.value[1]) > 0, `Prometheus counted no verb answers: ${JSON.stringify(asked)}`);
    const applied = await prom.query('changes(mesh_provisioner_projection_revision{what="needs"}[15s])');
    assert.equal(applied.length, 2);
    for (const s of applied) assert.ok(Number(s.value[1]) > 2, `${s.metric["instance"]} applied no writes in Prometheus's view`);
    const [slowest] = await prom.query("max(max_over_time(scrape_duration_seconds[20s]))");
    t.diagnostic(`${writes} writes and ${answered} verb answers in ${LOAD_MS} ms, no alert firing; slowest scrape ${slowest?.value[1]} s`);
  });

  test("a key out of its bucket's shape fires MeshProvisionerOutOfShapeKeys naming the bucket, and deleting it resolves it", async (t) => {
    const t0 = Date.now();
    await kv.needs.put("n1.web.config", "x"); // 3 tokens: a needs key has 4
    const alert = await alertsUntil("MeshProvisionerOutOfShapeKeys firing for needs", 20_000, (alerts) => {
      const f = firing(alerts, "MeshProvisionerOutOfShapeKeys", { what: "needs", severity: "info" });
      assert.ok(f);
      return f;
    });
    assert.match(alert.annotations["summary"] ?? "", /1 key\(s\) of the needs bucket are out of its shape/);
    const fired = Date.now() - t0;
    await kv.needs.delete("n1.web.config");
    await alertsUntil("MeshProvisionerOutOfShapeKeys resolved", 20_000, (alerts) => assert.deepEqual(named(alerts, "MeshProvisionerOutOfShapeKeys"), []));
    t.diagnostic(`fired ${fired} ms after the write, resolved ${Date.now() - t0 - fired} ms after the delete`);
  });

  test("the nats-server stopped fires MeshProvisionerNatsDisconnected for each instance, InstanceNotReady and NoInstanceReady; its restart resolves them", async (t) => {
    const t0 = Date.now();
    await server.kill("SIGTERM"); // the store is kept for the restart
    let restarted = false;
    try {
      await alertsUntil("the connection and readiness alerts firing", 30_000, (alerts) => {
        for (const s of [a, b]) {
          assert.ok(firing(alerts, "MeshProvisionerNatsDisconnected", { instance: hostPort(s), severity: "ticket" }), `NatsDisconnected for ${s.proc.name}`);
          assert.ok(firing(alerts, "MeshProvisionerInstanceNotReady", { instance: hostPort(s), severity: "ticket" }), `InstanceNotReady for ${s.proc.name}`);
        }
        assert.ok(firing(alerts, "MeshProvisionerNoInstanceReady", { severity: "page" }), "NoInstanceReady");
      });
      const fired = Date.now() - t0;
      await server.restart();
      restarted = true;
      const back = Date.now();
      await alertsUntil("the connection and readiness alerts resolved", 30_000, (alerts) => {
        for (const name of ["MeshProvisionerNatsDisconnected", "MeshProvisionerInstanceNotReady", "MeshProvisionerNoInstanceReady"]) {
          assert.deepEqual(named(alerts, name), [], `${name} still active`);
        }
      });
      t.diagnostic(`fired ${fired} ms after the stop, resolved ${Date.now() - back} ms after the restart`);
    } finally {
      if (!restarted) await server.restart();
    }
  });

  test("the holder killed with SIGKILL, the standby kept from the seat by its lease: MeshProvisionerSeatVacant fires, and resolves when the standby takes the seat", async (t) => {
    // After the nats-server's restart, `a` (the shorter lease) holds the seat again.
    await eventually(
      async () => {
        const held = await prom.query("mesh_provisioner_seat_held == 1");
        assert.deepEqual(
          held.map((s) => s.metric["instance"]),
          [hostPort(a)],
        );
      },
      { timeoutMs: 20_000, intervalMs: 250, message: "a holds the seat in Prometheus's view" },
    );
    const fromLine = b.proc.lines.length;
    const t0 = Date.now();
    a.proc.signal("SIGKILL");
    await a.proc.exited;

    const vacant = await alertsUntil("MeshProvisionerSeatVacant firing", STANDBY_TTL_S * 1000, (alerts) => {
      assert.equal(b.proc.lines.slice(fromLine).some(holdsLine), false, "b took the seat before the alert fired");
      const f = firing(alerts, "MeshProvisionerSeatVacant", { severity: "page" });
      assert.ok(f, "SeatVacant not firing");
      assert.ok(firing(alerts, "MeshProvisionerInstanceDown", { instance: hostPort(a), severity: "ticket" }), "InstanceDown for a");
      assert.deepEqual(named(alerts, "MeshProvisionerNoInstanceReady"), [], "b is ready: the mesh still answers");
      return f;
    });
    assert.match(vacant.annotations["description"] ?? "", /each has seen no holder that may write for \d+/);
    const fired = Date.now() - t0;

    const took = await b.proc.waitForLine(holdsLine, (STANDBY_TTL_S + 15) * 1000, "b holds the seat", fromLine);
    await alertsUntil("MeshProvisionerSeatVacant resolved", 20_000, (alerts) => assert.deepEqual(named(alerts, "MeshProvisionerSeatVacant"), []));
    t.diagnostic(
      `SeatVacant fired ${fired} ms after the kill, b took the seat ${took.receivedAt - t0} ms after it, the alert resolved ${Date.now() - took.receivedAt} ms later; ${Date.now() - started} ms in all`,
    );
  });
});
