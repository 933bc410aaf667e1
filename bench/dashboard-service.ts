/**
 * The service with its dashboard: `bin/mesh-provisioner serve --server URL
 * --http 127.0.0.1:0`, started as the main bench starts it (the same node
 * flags, the same gc hook), measured the same way for context: first sync
 * from the spawn to its log line "all projections synced", and its resident
 * memory a fixed time after that, after a forced gc (sync.ts).
 */
import { jsonLine, logTime, spawnService, STARTING_MSG, SYNCED_MSG, type Child } from "./children.js";
import { procMemory } from "./common.js";
import { memoryAfter } from "./sync.js";

const SERVING_MSG = "serving /healthz";

export interface HttpService {
  readonly child: Child;
  /** The dashboard's base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  /** Spawn -> "all projections synced", ms. */
  readonly syncMs: number;
  /** Spawn -> the service's first log line, ms. */
  readonly startMs: number;
  /** VmRSS after sync (forced gc), bytes. */
  readonly rssAfterSync: number;
  /** Peak VmRSS at that moment, bytes. */
  readonly peakRssAtSync: number;
}

export async function startHttpService(natsUrl: string, timeoutMs: number, serveArgs: readonly string[] = []): Promise<HttpService> {
  const child = spawnService(natsUrl, [], ["--http", "127.0.0.1:0", ...serveArgs]);
  const serving = child.waitFor(
    "stderr",
    (l) => {
      const o = jsonLine(l);
      return typeof o?.["msg"] === "string" && o["msg"].startsWith(SERVING_MSG) && typeof o["url"] === "string" ? o["url"] : undefined;
    },
    timeoutMs,
    `the log line "${SERVING_MSG} …"`,
  );
  const started = child.waitFor("stderr", (l) => logTime(l, STARTING_MSG), timeoutMs, `the log line "${STARTING_MSG}"`);
  const synced = child.waitFor("stderr", (l) => logTime(l, SYNCED_MSG), timeoutMs, `the log line "${SYNCED_MSG}"`);
  // All three at once: whichever fails first fails the start, and no rejection is left unhandled.
  const [url, startedAt, syncedAt] = await Promise.all([serving, started, synced]);
  const mem = await memoryAfter(child, syncedAt);
  return {
    child,
    url: url.replace(/\/$/, ""),
    syncMs: syncedAt - child.spawnedAt,
    startMs: startedAt - child.spawnedAt,
    rssAfterSync: mem.rss,
    peakRssAtSync: mem.hwm,
  };
}

/** VmRSS and peak VmRSS now (no forced gc), bytes; NaN when /proc cannot be read. */
export function rssNow(child: Child): { rss: number; hwm: number } {
  return procMemory(child.pid) ?? { rss: Number.NaN, hwm: Number.NaN, anon: Number.NaN, file: Number.NaN };
}
