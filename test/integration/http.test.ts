import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { request, type IncomingMessage } from "node:http";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV } from "@nats-io/kv";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectTo } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";
import { httpGet } from "../helpers/http-get.js";
import { Fleet } from "../helpers/processes.js";
import { spawnServed } from "../helpers/served.js";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { BUCKETS, streamName } from "mesh-provisioner-client/keys";
import { VERB_SUBJECT } from "mesh-provisioner-client/protocol/subjects.js";
import { WHATS, type What } from "mesh-provisioner-client/keys";

/** One GET, with its content type. */
async function get(url: string, timeoutMs?: number): Promise<{ status: number; type: string; body: string }> {
  const r = await httpGet(url, {}, timeoutMs);
  return { status: r.status, type: String(r.headers["content-type"] ?? ""), body: r.body };
}

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parseProm(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line.length === 0 || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    const raw = m[3]!;
    out.push({ name: m[1]!, labels, value: raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw) });
  }
  return out;
}

/** The value of the one sample named `name` whose labels include `labels`, or undefined. */
function sample(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

async function scrape(base: string): Promise<{ text: string; samples: Sample[]; type: string }> {
  const r = await get(`${base}/metrics`);
  assert.equal(r.status, 200, r.body);
  return { text: r.body, samples: parseProm(r.body), type: r.type };
}

describe("serve --http: /healthz, /readyz, /metrics, /events", () => {
  let server: RunningNatsServer;
  let client: NatsConnection;
  let fleet: Fleet;
  let base: string;
  const kvs = {} as Record<What, KV>;

  before(async () => {
    server = await startNatsServer();
    client = await connectTo(server);
    fleet = new Fleet({ server: server.url });
    ({ base } = await spawnServed(fleet, { name: "serve-http" }));
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
    const kvm = new Kvm(client);
    for (const w of WHATS) kvs[w] = await kvm.open(BUCKETS[w]);
  });

  after(async () => {
    await fleet?.killAll();
    await client?.close().catch(() => undefined);
    await server?.stop();
  });

  test("/healthz answers 200 while the process is up", async () => {
    const r = await get(`${base}/healthz`);
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { status: "ok" });
  });

  test("/readyz answers 200 once every projection has synced and the bus is connected", async () => {
    const r = await eventually(async () => {
      const got = await get(`${base}/readyz`);
      assert.equal(got.status, 200, got.body);
      return got;
    });
    assert.deepEqual(JSON.parse(r.body), {
      ready: true,
      connected: true,
      synced: { registry: true, needs: true, applied: true, collect: true },
    });
  });

  test("an unknown path answers 404", async () => {
    const r = await get(`${base}/no/such/page`);
    assert.equal(r.status, 404);
    assert.equal(JSON.parse(r.body).error.code, "E_NOT_FOUND");
    assert.match(JSON.parse(r.body).error.message, /not found/);
  });

  test("/metrics is Prometheus text whose gauges match the buckets: entries, out-of-shape keys, lag, the seat and the 13 registry creations of a fresh server", async () => {
    await kvs.needs.put("n1.web.config.port", JSON.stringify({ default: 8080 }));
    await kvs.needs.put("n1.web.secret.db", "");
    await kvs.needs.put("n2.api.config.url", JSON.stringify("https://example.org"));
    await kvs.needs.put("n1.web.config", "three tokens: out of shape");
    await kvs.applied.put("n1.web", JSON.stringify({ at: "2024-01-01T00:00:00Z" }));
    await kvs.collect.put("n1.shell.web", "export A=1");

    const { samples, type, text } = await eventually(
      async () => {
        const s = await scrape(base);
        assert.equal(sample(s.samples, "mesh_provisioner_projection_entries", { what: "needs" }), 3);
        assert.equal(sample(s.samples, "mesh_provisioner_projection_entries", { what: "collect" }), 1);
        assert.equal(sample(s.samples, "mesh_provisioner_registry_writes_total", { op: "create" }), 13);
        for (const w of WHATS) assert.equal(sample(s.samples, "mesh_provisioner_projection_lag_messages", { what: w }), 0, `watch lag of ${w}`);
        return s;
      },
      { timeoutMs: 10_000, message: "the metrics did not reach the buckets' state" },
    );
    assert.match(type, /^text\/plain; version=0\.0\.4/);
    assert.match(text, /^# HELP mesh_provisioner_projection_entries /m);
    assert.match(text, /^# TYPE mesh_provisioner_projection_entries gauge$/m);
    assert.equal(sample(samples, "mesh_provisioner_projection_entries", { what: "registry" }), 13);
    assert.equal(sample(samples, "mesh_provisioner_projection_entries", { what: "applied" }), 1);
    assert.equal(sample(samples, "mesh_provisioner_projection_out_of_shape_keys", { what: "needs" }), 1);
    for (const w of ["registry", "applied", "collect"]) assert.equal(sample(samples, "mesh_provisioner_projection_out_of_shape_keys", { what: w }), 0);
    const jsm = await jetstreamManager(client);
    for (const w of WHATS) {
      assert.equal(sample(samples, "mesh_provisioner_projection_synced", { what: w }), 1, `synced of ${w}`);
      const last = (await jsm.streams.info(streamName(BUCKETS[w]))).state.last_seq;
      assert.equal(sample(samples, "mesh_provisioner_projection_revision", { what: w }), last, `revision of ${w} is its stream's last sequence`);
    }
    assert.equal(sample(samples, "mesh_provisioner_seat_held"), 1);
    assert.equal(sample(samples, "mesh_provisioner_registry_writes_total", { op: "update" }), 0);
    assert.equal(sample(samples, "mesh_provisioner_registry_writes_total", { op: "delete" }), 0);
    assert.ok(
      samples.some((s) => s.name === "process_cpu_seconds_total"),
      "the process's default metrics are there, under their standard names",
    );
    assert.deepEqual(
      samples.filter((s) => !/^(mesh_provisioner_|process_|nodejs_)/.test(s.name)).map((s) => s.name),
      [],
      "every metric is named mesh_provisioner_*, process_* or nodejs_*",
    );
  });

  test("/metrics counts verb requests by what and status, errors by status, and their latency as a histogram", async () => {
    const ask = async (body: Record<string, unknown>): Promise<number> => {
      const m = await client.request(VERB_SUBJECT, JSON.stringify(body), { timeout: 5000 });
      return Number(m.headers?.get("Nats-Service-Error-Code") || 200);
    };
    for (let i = 0; i < 3; i++) assert.equal(await ask({ what: "needs" }), 200);
    assert.equal(await ask({ what: "applied", node: "n1" }), 200);
    assert.equal(await ask({ what: "needs", node: "*" }), 400, "a wildcard filter is refused");

    // The observation happens just after the reply is sent: poll for it.
    const { samples, text } = await eventually(async () => {
      const s = await scrape(base);
      assert.equal(sample(s.samples, "mesh_provisioner_verb_requests_total", { what: "needs", status: "400" }), 1);
      return s;
    });
    assert.equal(sample(samples, "mesh_provisioner_verb_requests_total", { what: "needs", status: "200" }), 3);
    assert.equal(sample(samples, "mesh_provisioner_verb_requests_total", { what: "applied", status: "200" }), 1);
    assert.equal(sample(samples, "mesh_provisioner_verb_errors_total", { status: "400" }), 1);
    assert.match(text, /^# TYPE mesh_provisioner_verb_requests_total counter$/m);
    assert.match(text, /^# TYPE mesh_provisioner_verb_duration_seconds histogram$/m);

    const buckets = samples
      .filter((s) => s.name === "mesh_provisioner_verb_duration_seconds_bucket" && s.labels["what"] === "needs")
      .map((s) => ({ le: s.labels["le"] === "+Inf" ? Infinity : Number(s.labels["le"]), n: s.value }))
      .sort((a, b) => a.le - b.le);
    assert.equal(buckets.length, 14, "13 bounds and +Inf");
    assert.equal(buckets.at(-1)?.le, Infinity);
    assert.equal(buckets.at(-1)?.n, 4, "all four needs requests (three 200, one 400) are under +Inf");
    for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i]!.n >= buckets[i - 1]!.n, "buckets are cumulative");
    assert.equal(sample(samples, "mesh_provisioner_verb_duration_seconds_count", { what: "needs" }), 4);
    const sum = sample(samples, "mesh_provisioner_verb_duration_seconds_sum", { what: "needs" }) ?? -1;
    assert.ok(sum > 0 && sum < 5, `the latencies add up to a plausible time, got ${sum} s`);
  });

  test("/events?node= streams a change event for a need of that node put after the client connected", async () => {
    let res: IncomingMessage | undefined;
    const req = request(`${base}/events?node=n7`, { agent: false });
    try {
      let text = "";
      const opened = new Promise<void>((resolve, reject) => {
        req.once("error", reject);
        req.once("response", (r) => {
          res = r;
          r.setEncoding("utf8").on("data", (c: string) => {
            text += c;
            if (text.includes(": connected")) resolve();
          });
        });
      });
      req.end();
      await Promise.race([opened, new Promise((_, reject) => setTimeout(() => reject(new Error("/events did not open within 5 s")), 5000).unref())]);
      assert.equal(res?.statusCode, 200);
      assert.match(String(res?.headers["content-type"]), /^text\/event-stream/);

      const rev = await kvs.needs.put("n7.cache.config.size", JSON.stringify({ mb: 64 }));
      const event = await eventually(
        () => {
          const block = text.split("\n\n").find((b) => b.startsWith("event: change\n") && b.includes('"n7.cache.config.size"'));
          assert.ok(block, `no change event for the new need yet; got ${JSON.stringify(text)}`);
          return JSON.parse(block.split("\n")[1]!.slice("data: ".length)) as Record<string, any>;
        },
        { timeoutMs: 5000 },
      );
      assert.equal(event["what"], "needs");
      assert.equal(event["op"], "put");
      assert.equal(event["revision"], rev);
      assert.deepEqual(event["entry"]["value"], { mb: 64 });
      assert.equal(event["entry"]["node"], "n7");
      assert.equal(event["entry"]["module"], "cache");
    } finally {
      req.destroy();
      res?.destroy();
    }
  });

  test("/metrics still answers within 3 s while the nats-server is down (a scrape must not outlast Prometheus' 10 s timeout)", async () => {
    await server.kill();
    try {
      await eventually(async () => assert.equal((await get(`${base}/readyz`)).status, 503), { timeoutMs: 10_000 });
      const t0 = Date.now();
      const r = await get(`${base}/metrics`, 3000);
      assert.equal(r.status, 200);
      assert.ok(Date.now() - t0 < 3000);
    } finally {
      await server.restart();
      await eventually(async () => assert.equal((await get(`${base}/readyz`)).status, 200), { timeoutMs: 15_000, intervalMs: 100 });
    }
  });

  test("/readyz answers 503 with connected:false while the nats-server is down, and 200 again within 15 s of its restart; /healthz stays 200", async () => {
    await server.kill(); // SIGKILL; the JetStream store is kept
    const down = await eventually(
      async () => {
        const r = await get(`${base}/readyz`);
        assert.equal(r.status, 503, r.body);
        const body = JSON.parse(r.body);
        assert.equal(body.connected, false);
        return body;
      },
      { timeoutMs: 10_000, message: "/readyz did not turn 503 after the nats-server died" },
    );
    assert.equal(down.ready, false);
    assert.equal((await get(`${base}/healthz`)).status, 200, "the process is still up");

    const t0 = Date.now();
    await server.restart();
    const up = await eventually(
      async () => {
        const r = await get(`${base}/readyz`);
        assert.equal(r.status, 200, r.body);
        return JSON.parse(r.body);
      },
      { timeoutMs: 15_000, intervalMs: 100, message: "/readyz did not return to 200 after the nats-server restarted" },
    );
    assert.equal(up.connected, true);
    assert.ok(Date.now() - t0 < 15_000);
    // And it answers from current data: a put made after the restart is counted.
    await kvs.needs.put("n8.after.config.restart", "{}");
    await eventually(async () => {
      const s = await scrape(base);
      assert.equal(sample(s.samples, "mesh_provisioner_projection_entries", { what: "needs" }), 5);
    });
  });
});
