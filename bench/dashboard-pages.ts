/**
 * The dashboard's mesh-wide pages in the bench (issue 35): what the mesh
 * holds besides the loaded needs so each page has a list to show (one item
 * per node in a collection, some needs of a kind no domain answers, some keys
 * out of shape), each page opened until live, a collect item put for the
 * collection on screen until its row shows, and that page kept open while
 * the heap is read every second.
 */
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { BUCKETS, encodeName } from "mesh-provisioner-client/keys";
import { sleep } from "./common.js";
import { newBenchPage, openLive } from "./dashboard-browser.js";
import { apiTimes, sampleHeap, type LiveSamples, type PhaseContext, type PutShown } from "./dashboard-phases.js";

/** The collection every node contributes to (its name is =hex escaped in the keys). */
export const BENCH_COLLECTION = "shell:zsh:normal";
/** Nodes with a need no domain answers, and keys out of shape: a few, spread over the mesh. */
const UNANSWERED_NODES = 100;
const OUT_OF_SHAPE = 20;
const ROW_TIMEOUT_MS = 10_000;

/** Put the extras: an item of BENCH_COLLECTION per node, tracing needs on some nodes, needs keys out of shape. */
export async function loadPageExtras(nc: NatsConnection, nodes: number, inFlight = 256): Promise<{ puts: number; ms: number }> {
  const kvm = new Kvm(nc);
  const collect = await kvm.open(BUCKETS.collect);
  const needs = await kvm.open(BUCKETS.needs);
  const enc = encodeName(BENCH_COLLECTION);
  const puts: (() => Promise<unknown>)[] = [];
  for (let i = 0; i < nodes; i++) puts.push(() => collect.put(`n${i}.${enc}.shell`, `alias n${i}='ssh n${i}'`));
  const every = Math.max(1, Math.floor(nodes / UNANSWERED_NODES));
  for (let i = 0; i < nodes; i += every) puts.push(() => needs.put(`n${i}.m0.tracing.endpoint`, '{"default":"otel:4317"}'));
  for (let i = 0; i < OUT_OF_SHAPE; i++) puts.push(() => needs.put(`n${i * every}.m0.config`, "three tokens"));
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < puts.length) await (puts[next++] as () => Promise<unknown>)();
    }),
  );
  return { puts: puts.length, ms: performance.now() - t0 };
}

export interface ListPageSpec {
  readonly name: string;
  readonly path: string;
  /** Rows that show the page has its list. */
  readonly rows: string;
}

/** The pages measured, each with the rows it must show to be live. */
export const LIST_PAGES: readonly ListPageSpec[] = [
  { name: "registry", path: "/?page=registry", rows: "#kinds tbody tr[data-kind]" },
  { name: "kind (config: every node)", path: "/?page=kind&kind=config", rows: "#kind-nodes tbody tr[data-node]" },
  { name: "needs unanswered", path: "/?page=unanswered", rows: "#unanswered-nodes tbody tr[data-node]" },
  { name: "keys out of shape", path: "/?page=out-of-shape", rows: "#oos-keys tbody tr[data-key]" },
  { name: "collections", path: "/?page=collections", rows: "#collections tbody tr[data-collection]" },
  {
    name: "collection (an item per node)",
    path: `/?page=collection&collection=${encodeURIComponent(BENCH_COLLECTION)}`,
    rows: "#collection-items tbody tr[data-key]",
  },
  { name: "instances", path: "/?page=instances", rows: "#instances tbody tr[data-instance]" },
];

const liveWith = (rows: string): string =>
  `document.querySelector("#conn.live") && document.querySelectorAll(${JSON.stringify(rows)}).length > 0 && { rows: document.querySelectorAll(${JSON.stringify(rows)}).length }`;

/** Open each page `runs` times (a new page each) until live; the heap read once each. */
export async function listPagesLive(ctx: PhaseContext, o: { runs: number; phase: string }): Promise<Record<string, LiveSamples>> {
  const out: Record<string, LiveSamples> = {};
  for (const spec of LIST_PAGES) {
    const s: LiveSamples = { ms: [], inPageMs: [], timelines: [] };
    for (let r = 0; r < o.runs; r++) {
      const p = await newBenchPage(ctx.browser, ctx.errors);
      try {
        const live = await openLive<{ rows: number }>(p, `${ctx.base}${spec.path}`, liveWith(spec.rows), ctx.liveTimeoutMs);
        s.ms.push(live.ms);
        s.inPageMs.push(live.inPageMs);
        s.timelines.push(live.timeline);
        ctx.log(
          `${o.phase}, ${spec.name} ${r + 1}/${o.runs}: live in ${live.ms.toFixed(0)} ms (in page ${live.inPageMs.toFixed(0)} ms: html ${live.timeline.html}, ${apiTimes(live.timeline)}), ${live.seen.rows} rows`,
        );
        await sampleHeap(ctx, p, "list", o.phase);
      } finally {
        await p.close();
      }
    }
    out[spec.name] = s;
  }
  return out;
}

/**
 * With the collection's page open at its first page (node n0's items come
 * first), put `samples` new items for n0 and time each row's appearance;
 * then keep the page open `holdMs` with the heap read every second.
 */
export async function collectionPutShown(ctx: PhaseContext, nc: NatsConnection, o: { samples: number; holdMs: number; phase: string }): Promise<PutShown> {
  const collect = await new Kvm(nc).open(BUCKETS.collect);
  const enc = encodeName(BENCH_COLLECTION);
  const out: PutShown = { node: "n0", fromAckMs: [], fromPutMs: [], ackMs: [], notShown: 0 };
  const p = await newBenchPage(ctx.browser, ctx.errors);
  try {
    const spec = LIST_PAGES.find((x) => x.name.startsWith("collection ")) as ListPageSpec;
    await openLive(p, `${ctx.base}${spec.path}`, liveWith(spec.rows), ctx.liveTimeoutMs);
    for (let j = 0; j < o.samples; j++) {
      const key = `n0.${enc}.bench${j}`;
      const sel = JSON.stringify(`#collection-items tr[data-key="${key}"]`);
      // Set up before the put, and not awaited here (the IIFE returns nothing): read after the put.
      await p.page.evaluate(`(() => { window.__rowSeen = new Promise((resolve) => {
        const mo = new MutationObserver(() => { if (document.querySelector(${sel})) { mo.disconnect(); resolve(Date.now()); } });
        mo.observe(document.body, { childList: true, subtree: true });
        setTimeout(() => { mo.disconnect(); resolve(null); }, ${ROW_TIMEOUT_MS});
      }); })()`);
      const before = Date.now();
      await collect.put(key, `alias bench${j}=true`);
      const acked = Date.now();
      const at = (await p.page.evaluate("window.__rowSeen")) as number | null;
      out.ackMs.push(acked - before);
      if (at === null) {
        out.notShown++;
        ctx.log(`${o.phase}: the row of ${key} did not appear within ${ROW_TIMEOUT_MS} ms`);
      } else {
        out.fromAckMs.push(at - acked);
        out.fromPutMs.push(at - before);
      }
      await sleep(300 + Math.random() * 200);
    }
    ctx.log(`${o.phase}: ${o.samples} items put, the page kept open ${o.holdMs} ms more`);
    await sampleHeap(ctx, p, "list", o.phase, o.holdMs);
  } finally {
    await p.close();
  }
  // The items put are removed: a bench run leaves the mesh as it loaded it.
  for (let j = 0; j < o.samples; j++) await collect.delete(`n0.${enc}.bench${j}`);
  return out;
}
