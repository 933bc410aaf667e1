/**
 * `npm run chaos [-- --minutes N] [--seed S] [--out FILE]`: a seeded chaos run
 * against a three-server cluster and three `serve` instances (issue 14).
 *
 * Phases: start the cluster (the roles' grants as its users) and the three
 * instances; start the load (node writers, verb readers, feed followers);
 * inject the planned faults for N minutes; stop the load, heal everything and
 * wait for a quiet state; read the final state; check the history; print the
 * summary and write the whole history as JSON. Exit 0 when every check
 * passed, 1 when one failed, 2 when the run itself could not be made. Every
 * child (servers, services, proxies) is stopped on the way out, on failure
 * and on Ctrl-C too.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { NatsConnection } from "@nats-io/nats-core";
import { ProvisionerClient } from "mesh-provisioner-client";
import { parseDuration } from "../src/duration.js";
import { desiredRegistry } from "../src/reconcile/registry.js";
import { BIN } from "../test/helpers/processes.js";
import { Ledger, NodeWriter, VerbReader, readOnce } from "./actors.js";
import { runChecks } from "./checks.js";
import { startChaosCluster, type ChaosCluster } from "./cluster.js";
import { Injector } from "./faults.js";
import { figures } from "./figures.js";
import { captureFinal, waitQuiet } from "./final.js";
import { Follower } from "./followers.js";
import { History } from "./history.js";
import { Instances } from "./instances.js";
import { Observer } from "./observe.js";
import { renderSummary } from "./report.js";
import { Rng, freshSeed } from "./rng.js";
import { NODE_BUCKETS, countByKind, planFaults } from "./schedule.js";
import { ChaosSite, checkSite } from "./site.js";

const NODES = ["n1", "n2", "n3"] as const;
const FLOOD_NODE = "flood";
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const say = (line: string): void => void process.stderr.write(`chaos: ${line}\n`);

const USAGE = `usage: npm run chaos -- [--minutes N] [--seed S] [--out FILE] [--seat-ttl 2s] [--quiet 60] [--flood-keys 1500]
  --minutes N      how long faults are injected (default 3; fractions allowed)
  --seed S         replays a run's choices exactly (default: from the clock, printed)
  --out FILE       the whole history as JSON (default bench-results/chaos-<seed>-<time>.json)
  --seat-ttl D     the instances' seat lease time (default 2s)
  --quiet S        the longest wait for a quiet state after the faults, in seconds (default 60)
  --flood-keys N   how many keys the flooding node writes (default 1500)`;

interface Flags {
  minutes: number;
  seed: number;
  out: string;
  ttl: string;
  quietMs: number;
  floodKeys: number;
}

function flags(argv: string[]): Flags {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: "string" },
      seed: { type: "string" },
      out: { type: "string" },
      "seat-ttl": { type: "string" },
      quiet: { type: "string" },
      "flood-keys": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE + "\n");
    process.exit(0);
  }
  const num = (v: string | undefined, dflt: number, what: string, ok: (n: number) => boolean): number => {
    if (v === undefined) return dflt;
    const n = Number(v);
    if (!Number.isFinite(n) || !ok(n))
      throw new Error(`${what} must be ${what === "--seed" ? "an integer from 0 to 4294967295" : "a positive number"}, got ${v}`);
    return n;
  };
  const minutes = num(values.minutes, 3, "--minutes", (n) => n > 0);
  const seed = num(values.seed, freshSeed(), "--seed", (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return {
    minutes,
    seed,
    out: resolve(values.out ?? `bench-results/chaos-${seed}-${stamp}.json`),
    ttl: values["seat-ttl"] ?? "2s",
    quietMs: num(values.quiet, 60, "--quiet", (n) => n > 0) * 1000,
    floodKeys: Math.round(num(values["flood-keys"], 1500, "--flood-keys", (n) => n >= 1)),
  };
}

/** Whether this build of the service has the node limits and the flood detection (issue 14's last part). */
function hasFloodFeature(): boolean {
  try {
    const help = execFileSync(process.execPath, [BIN, "serve", "--help"], { encoding: "utf8" });
    return help.includes("--bucket-max-bytes") && help.includes("--flood-keys");
  } catch {
    return false;
  }
}

/** One line of how the run is going. */
function progress(h: History, inst: Instances): string {
  const w = h.writes;
  const acked = w.filter((x) => x.outcome === "ack").length;
  const indet = w.filter((x) => x.outcome === "indeterminate").length;
  const ok = h.reads.filter((r) => r.status === 200).length;
  const faults = h.faults.filter((x) => x.skipped === undefined);
  const open = faults.filter((x) => x.healedAt === undefined).map((x) => x.kind);
  const slots = inst.slots.map((s) => `${s.name}:${s.state}`).join(" ");
  return `${(h.now() / 1000).toFixed(0)} s: ${acked} writes acknowledged, ${indet} indeterminate; ${h.reads.length} reads (${ok} 200); ${faults.length} faults (in progress: ${open.join(", ") || "none"}); ${slots}`;
}

async function main(): Promise<number> {
  const f = flags(process.argv.slice(2));
  const ttlMs = parseDuration(f.ttl, "--seat-ttl");
  const durationMs = Math.round(f.minutes * 60_000);
  const plan = planFaults({ seed: f.seed, durationMs, ttlMs, slots: 3, nodes: [...NODES], floodKeys: f.floodKeys });
  const command = `npm run chaos -- --minutes ${f.minutes} --seed ${f.seed}`;
  const history = new History({ seed: f.seed, minutes: f.minutes, ttlMs, nodes: [...NODES], floodNode: FLOOD_NODE, command, plan });
  const floodFeature = hasFloodFeature();
  history.meta.floodFeature = floodFeature;
  say(`seed ${f.seed}; ${plan.length} faults planned over ${f.minutes} min: ${JSON.stringify(countByKind(plan))}`);
  say(`replay with: ${command}`);

  const rng = new Rng(f.seed);
  const table = desiredRegistry() as ReadonlyMap<string, unknown>;
  const conns: NatsConnection[] = [];
  const followers: Follower[] = [];
  let cluster: ChaosCluster | undefined;
  let instances: Instances | undefined;
  let observer: Observer | undefined;
  let site: ChaosSite | undefined;
  let cleaned: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaned ??= (async () => {
      for (const x of followers) x.stop();
      await observer?.stop().catch(() => undefined);
      await site?.stop().catch(() => undefined);
      await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
      await instances?.stop().catch(() => undefined);
      await cluster?.stop().catch(() => undefined);
    })());
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      say(`${sig}: stopping every child`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  try {
    cluster = await startChaosCluster([...NODES, FLOOD_NODE]);
    const c = cluster;
    const connect = async (who: Parameters<ChaosCluster["connect"]>[0], name: string): Promise<NatsConnection> => {
      const nc = await c.connect(who, name);
      conns.push(nc);
      return nc;
    };
    say(`cluster up: ${c.urls.join(", ")}${floodFeature ? "" : " (this service has no flood detection yet)"}`);
    const extraArgs = floodFeature ? ["--max-value-bytes", "16KiB", "--flood-keys", "500", "--flood-bytes", "1MiB"] : [];
    if (floodFeature) history.meta.maxValueBytes = 16 * 1024;
    instances = await Instances.start(c, history, { ttl: f.ttl, extraArgs });
    const inst = instances;
    inst.startProbing();
    const first = inst.bySlot(0).spawn();
    await first.waitForLine((l) => l.msg.startsWith("all projections synced"), 60_000, "the first instance synced");
    inst.bySlot(1).spawn();
    inst.bySlot(2).spawn();
    const obs = (observer = await Observer.start(await connect(c.admin, "chaos-observer"), history));
    const started = Date.now();
    while (!(inst.allReady() && obs.currentHolder() && (await obs.readBucket("registry")).entries.length === table.size)) {
      if (Date.now() - started > 90_000) throw new Error("the three instances did not all become ready, with a holder and the registry written, within 90 s");
      await sleep(250);
    }
    say(`three instances ready; the seat is held by ${obs.currentHolder()?.instance}`);
    const s = (site = await ChaosSite.start(c, history));
    await s.spawn();
    say("the site's instance is synced through its leaf node link");

    const ledger = new Ledger();
    const writers = new Map<string, NodeWriter>();
    for (const n of NODES) writers.set(n, new NodeWriter(n, await connect(c.node(n), `writer-${n}`), history, rng.derive(`writer ${n}`), ledger));
    const floodWriter = new NodeWriter(FLOOD_NODE, await connect(c.node(FLOOD_NODE), "flood"), history, rng.derive("flood"), ledger);
    // The readers read every node's buckets, as an operator does: under the provisioner's grant.
    const readersNc = await connect(c.provisioner, "readers");
    const client = new ProvisionerClient(readersNc, { timeoutMs: 4000 });
    const readers = ["r1", "r2"].map((name) => new VerbReader(name, client, history, rng.derive(`reader ${name}`), ledger, NODES));
    const followNc = await connect(c.provider, "followers");
    const now = (): number => history.now();
    followers.push(new Follower({ name: "needs", user: c.provider.user, what: "needs", scope: "needs" }, followNc, now));
    followers.push(new Follower({ name: "registry", user: c.provider.user, what: "registry", scope: "needs" }, followNc, now));
    for (const [i, n] of NODES.entries()) {
      const what = NODE_BUCKETS[i % NODE_BUCKETS.length]!;
      followers.push(
        new Follower({ name: `${n}-${what}`, user: c.node(n).user, what, node: n, scope: { node: n } }, await connect(c.node(n), `follower-${n}`), now),
      );
    }
    for (const x of followers) x.start();
    for (const w of writers.values()) w.start();
    for (const r of readers) r.start();
    s.startReading(rng.derive("site reader"), ledger, NODES);

    const injector = new Injector({
      history,
      cluster: c,
      instances: inst,
      observer: obs,
      writers,
      floodWriter,
      verbNc: readersNc,
      rng,
      registryTable: table,
      floodValueBytes: 1024,
      ...(floodFeature ? { oversizeBytes: 20 * 1024 } : {}),
    });
    history.meta.chaosStartedAt = history.now();
    say(`faults start now, for ${f.minutes} min`);
    injector.start(plan);
    const status = setInterval(() => say(progress(history, inst)), 10_000);
    await sleep(durationMs);
    clearInterval(status);
    history.meta.chaosEndedAt = history.now();
    say("faults over: stopping the load, healing, waiting for a quiet state");
    await Promise.all([...readers.map((r) => r.stop()), ...[...writers.values()].map((w) => w.stop()), s.stopReading()]);
    say("load stopped; waiting for the faults in progress to be healed");
    await injector.settle();
    say("every fault healed");
    for (const s of inst.slots) if (!s.alive) s.spawn();
    const still = await waitQuiet(inst, obs, followers, new Set(table.keys()), 6_000, f.quietMs);
    if (still.length > 0) history.note(`not quiet after ${f.quietMs / 1000} s: ${still.slice(0, 5).join("; ")}`);
    for (const n of NODES) for (const what of NODE_BUCKETS) await readOnce(client, history, "final", what, n, ledger.lastAcked(what, n));
    if (!(await s.waitCurrent(ledger, NODES, 20_000))) history.note("the site did not answer every node at its last write, not stale, within 20 s");
    await s.finalReads(ledger, NODES);
    inst.stopProbing();
    for (const s of inst.slots) s.supervise = false;
    await captureFinal(history, inst, obs, followers);
    const unseen = await obs.finishRegistry();
    if (unseen > 0) history.note(`${unseen} registry messages were replaced before the run could record them`);
    history.meta.quietEndedAt = history.now();
  } catch (err) {
    say(`the run could not be made: ${(err as Error)?.stack ?? String(err)}`);
    await cleanup();
    return 2;
  }
  await cleanup();

  history.checks = [...runChecks(history, table), checkSite(history, site?.exits ?? [])];
  const fig = figures(history);
  mkdirSync(dirname(f.out), { recursive: true });
  writeFileSync(f.out, JSON.stringify(history, null, 1));
  process.stdout.write(renderSummary({ seed: f.seed, minutes: f.minutes, elapsedMs: history.now(), out: f.out }, fig, history.checks) + "\n");
  for (const n of history.notes) process.stdout.write(`note at ${(n.at / 1000).toFixed(1)} s: ${n.note}\n`);
  return history.checks.some((x) => x.status === "fail") ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    say(String((err as Error)?.message ?? err));
    process.stderr.write(USAGE + "\n");
    process.exit(2);
  },
);
