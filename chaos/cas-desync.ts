/**
 * `node dist/chaos/cas-desync.js [seconds]`: does a compare-and-set that races
 * another write of the same key make a clustered stream's replicas diverge on
 * this nats-server? Why the registry's writes are plain (src/reconcile/apply.ts).
 *
 * A three-server cluster and two R3 buckets of four keys. In `cas`, each round
 * puts a key and, at once, publishes a compare-and-set on that key expecting
 * the revision read before the put: the leader checks it while the put is
 * still in flight (nats-server #4320), and the replicas check it again as
 * they apply it. In `plain`, each round is two puts of one key. Every 2.5 s
 * the leader of one of the two streams is killed (-9) and restarted 1.5–3.5 s
 * later. Afterwards every server is made leader of each stream in turn
 * (step-downs) and reports its replica: last sequence, and the last message of
 * each key with its sequence. Exit 0 when every replica agrees, 1 when one
 * differs. On nats-server 2.9.10, 90 s: the `cas` replicas differed (one
 * numbered every write 4 lower), the `plain` ones agreed.
 */
import { headers, type NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { startNatsCluster, type RunningCluster } from "../src/embedded/nats-server.js";

const KEYS = ["k0", "k1", "k2", "k3"];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const text = new TextEncoder();

async function casRounds(nc: NatsConnection, kv: KV, stop: () => boolean): Promise<void> {
  const js = jetstream(nc, { timeout: 2000 });
  for (let i = 0; !stop(); i++) {
    const key = KEYS[i % KEYS.length] as string;
    try {
      const seen = (await kv.get(key))?.revision ?? 0;
      const h = headers();
      h.set("Nats-Expected-Last-Subject-Sequence", `${seen}`);
      // The plain put first: the compare-and-set reaches the leader while the put is in flight.
      const put = kv.put(key, `put${i}`);
      const cas = js.publish(`$KV.cas.${key}`, text.encode(`cas${i}`), { headers: h });
      await Promise.allSettled([put, cas]);
    } catch {
      await sleep(50); // no leader: wait for the election
    }
  }
}

async function plainRounds(kv: KV, stop: () => boolean): Promise<void> {
  for (let i = 0; !stop(); i++) {
    const key = KEYS[i % KEYS.length] as string;
    const r = await Promise.allSettled([kv.put(key, `a${i}`), kv.put(key, `b${i}`)]);
    if (r.some((x) => x.status === "rejected")) await sleep(50);
  }
}

async function leaderOf(jsm: JetStreamManager, stream: string): Promise<string | undefined> {
  for (let t = 0; t < 100; t++) {
    const leader = await jsm.streams.info(stream).then(
      (si) => si.cluster?.leader,
      () => undefined,
    );
    if (leader) return leader;
    await sleep(200);
  }
  return undefined;
}

async function killLeaders(cluster: RunningCluster, jsm: JetStreamManager, stop: () => boolean): Promise<number> {
  let kills = 0;
  while (!stop()) {
    await sleep(2500);
    const stream = kills % 2 === 0 ? "KV_cas" : "KV_plain";
    const leader = await leaderOf(jsm, stream);
    const victim = cluster.servers.find((s) => s.name === leader);
    if (victim === undefined || stop()) continue;
    await victim.kill("SIGKILL");
    kills++;
    await sleep(1500 + Math.random() * 2000);
    await victim.restart();
  }
  return kills;
}

/** Each server's view of `stream`, as leader in turn: "server -> description". */
async function replicas(nc: NatsConnection, jsm: JetStreamManager, stream: string): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const bucket = stream.slice("KV_".length);
  for (let t = 0; t < 15 && seen.size < 3; t++) {
    const leader = await leaderOf(jsm, stream);
    if (leader !== undefined && !seen.has(leader)) {
      const state = (await jsm.streams.info(stream)).state;
      const lasts = await Promise.all(
        KEYS.map((k) =>
          jsm.streams.getMessage(stream, { last_by_subj: `$KV.${bucket}.${k}` }).then(
            (m) => `${k}@${m?.seq}=${m ? new TextDecoder().decode(m.data) : "-"}`,
            (e: unknown) => `${k}: ${String(e)}`,
          ),
        ),
      );
      seen.set(leader, `last_seq ${state.last_seq}, ${lasts.join(" ")}`);
    }
    await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, undefined, { timeout: 3000 }).catch(() => undefined);
    await sleep(1500);
  }
  return seen;
}

async function main(): Promise<number> {
  const seconds = Number(process.argv[2] ?? 90);
  const cluster = await startNatsCluster(3);
  const nc = await connect({ servers: cluster.urls, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 5000 });
    const kvm = new Kvm(nc);
    const cas = await kvm.create("cas", { replicas: 3, history: 1 });
    const plain = await kvm.create("plain", { replicas: 3, history: 1 });
    const until = Date.now() + seconds * 1000;
    const stop = (): boolean => Date.now() >= until;
    const [, , kills] = await Promise.all([casRounds(nc, cas, stop), plainRounds(plain, stop), killLeaders(cluster, jsm, stop)]);
    await sleep(5000);
    console.log(`${seconds} s, ${kills} leader kills`);
    let differ = false;
    for (const stream of ["KV_cas", "KV_plain"]) {
      const seen = await replicas(nc, jsm, stream);
      const agree = new Set(seen.values()).size === 1 && seen.size === 3;
      differ ||= !agree;
      console.log(`${stream}: the replicas ${agree ? "agree" : seen.size < 3 ? `could not all be read (${seen.size} of 3)` : "DIFFER"}`);
      for (const [server, view] of seen) console.log(`  ${server}: ${view}`);
    }
    return differ ? 1 : 0;
  } finally {
    await nc.close().catch(() => undefined);
    await cluster.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
