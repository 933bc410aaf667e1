/**
 * The dashboard in a real browser: Debian's Chromium, headless, driven by
 * playwright-core (launched as the tests launch it: bench/chromium.ts).
 * Each page opens in a context of its own (no cache, no storage shared with
 * the page before), with a CDP session to read its JS heap and a list of the
 * errors it threw.
 *
 * Times are taken two ways: in the driver (performance.now() around the
 * browser's work: the figure the targets are judged on; it includes the CDP
 * round trips and the polling of the waited-for condition, once per
 * animation frame, so the page had been painted or was about to be) and in
 * the page itself, at the DOM change that made the condition true (a
 * MutationObserver; its performance.now() starts at the navigation, its
 * Date.now() is the same system clock as the driver's). On a loaded 2-core
 * machine the two can differ by a few hundred ms: the page's main thread
 * waits for a CPU before it renders the frame.
 */
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";

export interface BenchPage {
  readonly page: Page;
  readonly context: BrowserContext;
  readonly cdp: CDPSession;
  close(): Promise<void>;
}

/** A new page in a new context; its uncaught errors and console errors go to `errors`. */
export async function newBenchPage(browser: Browser, errors: string[]): Promise<BenchPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  const cdp = await context.newCDPSession(page);
  return { page, context, cdp, close: () => context.close().catch(() => undefined) };
}

/**
 * The page's heap as Runtime.getHeapUsage reports it, without forcing a gc:
 * `used`, V8's JS heap in use (the figure the target is about), and
 * `embedder`, Blink's own heap (the DOM), when this Chromium reports it.
 */
export async function heapUsage(p: BenchPage): Promise<{ used: number; embedder: number | undefined }> {
  const r = (await p.cdp.send("Runtime.getHeapUsage")) as { usedSize: number; embedderHeapUsedSize?: number };
  return { used: r.usedSize, embedder: r.embedderHeapUsedSize };
}

/** A full gc in the page (V8's and, with it, Blink's heap: Chromium collects both as one). */
export async function collectGarbage(p: BenchPage): Promise<void> {
  await p.cdp.send("HeapProfiler.collectGarbage");
}

export interface Live<T> {
  /** Driver: just before page.goto -> the condition seen true, ms. */
  ms: number;
  /** Page: navigation start -> the DOM change that made the condition true (its performance.now()), ms. */
  inPageMs: number;
  /** What the condition returned besides its time. */
  seen: T;
  /** The page's own timeline (its performance.now()): the HTML's response end and each /api/ read it had finished by then. */
  timeline: { html: number; api: { path: string; start: number; end: number }[] };
}

const TIMELINE = `(() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const api = performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/"))
    .map((e) => ({ path: new URL(e.name).pathname, start: Math.round(e.startTime), end: Math.round(e.responseEnd) }));
  return { html: nav ? Math.round(nav.responseEnd) : -1, api };
})()`;

/**
 * Open `url` and wait until `condition` (a browser expression evaluating to
 * an object when the page is live, false before) holds, polled every frame.
 */
export async function openLive<T>(p: BenchPage, url: string, condition: string, timeoutMs: number): Promise<Live<T>> {
  // In the new document, before its own script: note when the condition first holds (checked at every DOM change).
  await p.page.addInitScript(`(() => {
    const holds = () => { try { return !!(${condition}); } catch { return false; } };
    window.__liveAt = new Promise((resolve) => {
      const mo = new MutationObserver(() => { if (holds()) { mo.disconnect(); resolve(performance.now()); } });
      mo.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
    });
  })()`);
  const t0 = performance.now();
  await p.page.goto(url, { waitUntil: "commit", timeout: timeoutMs });
  const expr = `(() => { const r = (${condition}); return r ? r : false; })()`;
  const handle = await p.page.waitForFunction(expr, undefined, { polling: "raf", timeout: Math.max(1000, timeoutMs - (performance.now() - t0)) });
  const ms = performance.now() - t0;
  const seen = (await handle.jsonValue()) as T;
  await handle.dispose();
  const inPageMs = (await p.page.evaluate(`Promise.race([window.__liveAt, new Promise((r) => setTimeout(() => r(NaN), 1000))])`)) as number;
  const timeline = (await p.page.evaluate(TIMELINE)) as Live<T>["timeline"];
  return { ms, inPageMs, seen, timeline };
}

/** The overview is live: the stream open and the data read (#conn.live), node rows and the nodes total on screen. */
export const OVERVIEW_LIVE = `document.querySelector("#conn.live") && document.querySelectorAll("#nodes tbody tr[data-node]").length > 0 &&
  document.querySelector('[data-total="nodes"] b') && { rows: document.querySelectorAll("#nodes tbody tr[data-node]").length,
  nodesTotal: document.querySelector('[data-total="nodes"] b').textContent, pager: (document.querySelector("#pager") || {}).textContent }`;

/** A node's page is live: #conn.live and at least `rows` rows of needs on screen. */
export const nodeLive = (rows: number): string =>
  `document.querySelector("#conn.live") && document.querySelectorAll("#needs tbody tr[data-key]").length >= ${rows} &&
  { rows: document.querySelectorAll("#needs tbody tr[data-key]").length }`;

/**
 * Watch for a row `#needs tr[data-key=<key>]` to appear (a MutationObserver
 * on the page, set up before the put): returns a function that waits for it
 * and gives the page's Date.now() when it was in the DOM, or undefined after
 * `timeoutMs`.
 */
export async function watchRow(p: BenchPage, key: string, timeoutMs: number): Promise<() => Promise<number | undefined>> {
  const sel = JSON.stringify(`#needs tr[data-key="${key}"]`);
  await p.page.evaluate(`(() => {
    const sel = ${sel};
    window.__rowSeen = new Promise((resolve) => {
      if (document.querySelector(sel)) return resolve(-1);
      const mo = new MutationObserver(() => { if (document.querySelector(sel)) { mo.disconnect(); resolve(Date.now()); } });
      mo.observe(document.body, { childList: true, subtree: true });
      setTimeout(() => { mo.disconnect(); resolve(null); }, ${timeoutMs});
    });
  })()`);
  return async () => {
    const at = (await p.page.evaluate("window.__rowSeen")) as number | null;
    if (at === -1) throw new Error(`the row ${key} was on the page before it was put`);
    return at ?? undefined;
  };
}
