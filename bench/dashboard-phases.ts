/**
 * What the dashboard's bench measures in the browser, one procedure each:
 * the overview opened until live, a node's page opened until live, and a
 * need put for the node on screen until its row is on the page. Every page
 * is a new one (dashboard-browser.ts); its JS heap is read after it is live
 * and, when asked, every second while it stays open.
 */
import type { Browser } from "playwright-core";
import type { KV } from "@nats-io/kv";
import { KEYS_PER_NODE, sleep, valueOf } from "./common.js";
import { collectGarbage, heapUsage, newBenchPage, nodeLive, openLive, OVERVIEW_LIVE, watchRow, type BenchPage, type Live } from "./dashboard-browser.js";

export type PageKind = "overview" | "node" | "list";

export interface HeapSample {
  page: PageKind;
  phase: string;
  /** Background writes were running. */
  writes: boolean;
  /** V8's JS heap in use. */
  bytes: number;
  /** Blink's heap (the DOM), when reported. */
  embedderBytes: number | undefined;
  /** Read right after a forced gc (at the end of a page kept open): what the page holds, not its garbage. */
  afterGc: boolean;
}

export interface PhaseContext {
  readonly browser: Browser;
  /** The dashboard's base URL, no trailing slash. */
  readonly base: string;
  /** Errors the pages threw (pageerror, console errors). */
  readonly errors: string[];
  readonly heap: HeapSample[];
  /** Background writes are running (for the heap samples' label). */
  writes: boolean;
  readonly liveTimeoutMs: number;
  readonly log: (line: string) => void;
}

export interface LiveSamples {
  /** Driver: goto -> live, ms, one per repetition. */
  ms: number[];
  /** Page: navigation start -> live, ms. */
  inPageMs: number[];
  /** Page: when its HTML and its /api/ reads arrived, per repetition. */
  timelines: Live<unknown>["timeline"][];
  /** The nodes opened (node pages), in order. */
  nodes?: string[];
}

const ROW_TIMEOUT_MS = 10_000;

/**
 * Read the page's heap now; with `holdMs`, again every second that long,
 * then once more after a forced gc (the samples before it are as the page
 * runs, garbage included: those are what the target is judged on).
 */
export async function sampleHeap(ctx: PhaseContext, p: BenchPage, page: PageKind, phase: string, holdMs = 0): Promise<void> {
  const one = async (afterGc: boolean): Promise<void> => {
    const h = await heapUsage(p);
    ctx.heap.push({ page, phase, writes: ctx.writes, bytes: h.used, embedderBytes: h.embedder, afterGc });
  };
  await one(false);
  if (holdMs <= 0) return;
  for (let t = 1000; t <= holdMs; t += 1000) {
    await sleep(1000);
    await one(false);
  }
  await collectGarbage(p);
  await one(true);
}

/** "api/nodes 312–498" for the log: when the page's reads ran, in its own time. */
export const apiTimes = (t: Live<unknown>["timeline"]): string => t.api.map((a) => `${a.path.replace(/^\//, "")} ${a.start}–${a.end}`).join(", ");

/** The shown total as a number: "10,000" -> 10000. */
const shownNumber = (text: string | null | undefined): number => Number(String(text ?? "").replace(/[,\s]/g, ""));

/**
 * Open the overview `runs` times (a new page each), each until live; fails
 * loudly if the nodes total it shows is not `expectNodes`. The last page
 * stays open `holdMs` more, its heap read every second.
 */
export async function overviewLive(ctx: PhaseContext, o: { runs: number; expectNodes: number; phase: string; holdMs?: number }): Promise<LiveSamples> {
  const out: LiveSamples = { ms: [], inPageMs: [], timelines: [] };
  for (let r = 0; r < o.runs; r++) {
    const p = await newBenchPage(ctx.browser, ctx.errors);
    try {
      const live = await openLive<{ rows: number; nodesTotal: string; pager: string }>(p, `${ctx.base}/`, OVERVIEW_LIVE, ctx.liveTimeoutMs);
      const shown = shownNumber(live.seen.nodesTotal);
      if (shown !== o.expectNodes) {
        throw new Error(
          `the overview shows ${JSON.stringify(live.seen.nodesTotal)} nodes, but ${o.expectNodes} were loaded (pager: ${JSON.stringify(live.seen.pager)})`,
        );
      }
      out.ms.push(live.ms);
      out.inPageMs.push(live.inPageMs);
      out.timelines.push(live.timeline);
      ctx.log(
        `${o.phase} ${r + 1}/${o.runs}: live in ${live.ms.toFixed(0)} ms (in page ${live.inPageMs.toFixed(0)} ms: html ${live.timeline.html}, ${apiTimes(live.timeline)}), ${live.seen.rows} rows, total ${live.seen.nodesTotal} nodes, "${live.seen.pager}"`,
      );
      await sampleHeap(ctx, p, "overview", o.phase, r === o.runs - 1 ? (o.holdMs ?? 0) : 0);
    } finally {
      await p.close();
    }
  }
  return out;
}

/** Open each node's page (a new page each) until live with its `KEYS_PER_NODE` needs on screen. */
export async function nodeLivePhase(ctx: PhaseContext, o: { nodes: readonly string[]; phase: string }): Promise<LiveSamples> {
  const out: LiveSamples = { ms: [], inPageMs: [], timelines: [], nodes: [...o.nodes] };
  for (const [r, node] of o.nodes.entries()) {
    const p = await newBenchPage(ctx.browser, ctx.errors);
    try {
      const live = await openLive<{ rows: number }>(p, `${ctx.base}/?node=${encodeURIComponent(node)}`, nodeLive(KEYS_PER_NODE), ctx.liveTimeoutMs);
      out.ms.push(live.ms);
      out.inPageMs.push(live.inPageMs);
      out.timelines.push(live.timeline);
      ctx.log(
        `${o.phase} ${r + 1}/${o.nodes.length} (${node}): live in ${live.ms.toFixed(0)} ms (in page ${live.inPageMs.toFixed(0)} ms: html ${live.timeline.html}, ${apiTimes(live.timeline)}), ${live.seen.rows} needs rows`,
      );
      await sampleHeap(ctx, p, "node", o.phase);
    } finally {
      await p.close();
    }
  }
  return out;
}

export interface PutShown {
  node: string;
  /** The put's ack -> the row in the page's DOM, ms. */
  fromAckMs: number[];
  /** Just before the put -> the row in the page's DOM, ms. */
  fromPutMs: number[];
  /** Just before the put -> its ack, ms. */
  ackMs: number[];
  /** Puts whose row did not appear within ROW_TIMEOUT_MS. */
  notShown: number;
}

/**
 * With `node`'s page open and live: `samples` times, put a new need for it
 * (`<node>.m0.config.dash<j>`) and time its row's appearance; a pause of
 * 300–500 ms between samples, so they do not line up with the page's own
 * refreshes. The page's heap is read every 5 samples and every second of
 * `holdMs` at the end.
 */
export async function putShown(ctx: PhaseContext, kv: KV, o: { node: string; samples: number; phase: string; holdMs: number }): Promise<PutShown> {
  const out: PutShown = { node: o.node, fromAckMs: [], fromPutMs: [], ackMs: [], notShown: 0 };
  const p = await newBenchPage(ctx.browser, ctx.errors);
  try {
    const live = await openLive<{ rows: number }>(p, `${ctx.base}/?node=${encodeURIComponent(o.node)}`, nodeLive(KEYS_PER_NODE), ctx.liveTimeoutMs);
    ctx.log(`${o.phase}: ${o.node}'s page live in ${live.ms.toFixed(0)} ms; ${o.samples} puts for it`);
    for (let j = 0; j < o.samples; j++) {
      const key = `${o.node}.m0.config.dash${j}`;
      const shown = await watchRow(p, key, ROW_TIMEOUT_MS);
      const before = Date.now();
      await kv.put(key, valueOf(j, 7));
      const acked = Date.now();
      const at = await shown();
      out.ackMs.push(acked - before);
      if (at === undefined) {
        out.notShown++;
        ctx.log(`${o.phase}: the row of ${key} did not appear within ${ROW_TIMEOUT_MS} ms`);
      } else {
        out.fromAckMs.push(at - acked);
        out.fromPutMs.push(at - before);
      }
      if ((j + 1) % 5 === 0) await sampleHeap(ctx, p, "node", o.phase);
      await sleep(300 + Math.random() * 200);
    }
    await sampleHeap(ctx, p, "node", o.phase, o.holdMs);
  } finally {
    await p.close();
  }
  return out;
}
