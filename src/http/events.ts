/**
 * The dashboard's event streams (I/O): server-sent events filtered on the
 * server to what each page shows, so that a browser's traffic follows its
 * view and not the mesh's write rate.
 *
 * - `event: overview`: the overview's JSON (as `/api/overview`), at once on
 *   connecting, then at most every OVERVIEW_TICK_MS and only when a count, a
 *   revision or the seat moved: a change after a quiet spell is sent at once,
 *   changes under writes at most every OVERVIEW_TICK_MS.
 * - `event: change` (only on a stream opened with `?node=<node>`): a feed
 *   event (`{"what","op","key","revision","entry"|"outOfShape"}`) of a needs,
 *   applied or collect key of that node, or of any registry kind (a need's
 *   `answered` follows the registry).
 * - `event: resync`: changes were dropped because the browser read too slowly
 *   (over SLOW_CLIENT_BYTES waiting); read the node's page again.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { merge, map, type Subscription } from "rxjs";
import { answeredChecks, WHATS, type What } from "mesh-provisioner-client/keys";
import { feedEvent } from "../feed/events.js";
import type { ProvisionerReader } from "./reader.js";
import { overviewJson } from "./dashboard-api.js";

export const OVERVIEW_TICK_MS = 500;
/** A stream with more than this waiting to be sent gets no more changes until it drains (then a `resync`). */
export const SLOW_CLIENT_BYTES = 256 * 1024;

interface Client {
  readonly res: ServerResponse;
  readonly node: string | undefined;
  /** Changes were dropped while it was slow: send `resync` once it drains. */
  behind: boolean;
}

export interface EventHub {
  /** Serve one event stream (`node`: the node on screen, if any). */
  open(req: IncomingMessage, res: ServerResponse, node: string | undefined): void;
  readonly clients: number;
  close(): void;
}

/** The node a key belongs to: its first token (keys out of shape too, when they have one). */
function nodeOf(key: string): string {
  const dot = key.indexOf(".");
  return dot < 0 ? key : key.slice(0, dot);
}

export function startEventHub(p: ProvisionerReader, tickMs = OVERVIEW_TICK_MS): EventHub {
  const clients = new Set<Client>();
  const byNode = new Map<string, Set<Client>>();
  const checks = answeredChecks(p.projections.registry.store);

  const send = (c: Client, text: string): void => {
    if (c.res.writableLength > SLOW_CLIENT_BYTES) {
      c.behind = true;
      return;
    }
    c.res.write(text);
  };

  // The overview, when it moved; and a resync to streams that fell behind and have drained.
  let lastSent = "";
  let lastTickAt = 0;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const tick = (): void => {
    pending = undefined;
    lastTickAt = Date.now();
    if (clients.size === 0) return;
    const now = overviewJson(p);
    const moved = now !== lastSent;
    lastSent = now;
    for (const c of clients) {
      if (c.behind && c.res.writableLength === 0) {
        c.behind = false;
        c.res.write("event: resync\ndata: {}\n\n");
      }
      if (moved) send(c, `event: overview\ndata: ${now}\n\n`);
    }
  };
  // A change is sent as soon as the last overview is tickMs old: at once after a quiet spell, at most every tickMs under writes.
  const tickSoon = (): void => {
    if (pending !== undefined || clients.size === 0) return;
    pending = setTimeout(tick, Math.max(0, lastTickAt + tickMs - Date.now()));
    pending.unref();
  };

  const changes: Subscription = merge(...WHATS.map((w: What) => p.projections[w].changes$.pipe(map((change) => ({ w, change }))))).subscribe(
    ({ w, change }) => {
      tickSoon();
      if (byNode.size === 0) return;
      // A registry change can turn any node's needs answered or not: every node page hears of it.
      const watchers = w === "registry" ? [...byNode.values()] : [byNode.get(nodeOf(change.key))];
      let text: string | undefined;
      for (const set of watchers) {
        if (set === undefined) continue;
        text ??= `event: change\ndata: ${feedEvent(w, change, checks[w])}\n\n`;
        for (const c of set) send(c, text);
      }
    },
  );

  // What moves without a change (the seat, a projection catching up, a drained stream): looked at every tickMs.
  const interval = setInterval(tickSoon, tickMs);
  interval.unref();

  return {
    open(req, res, node) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive", "x-accel-buffering": "no" });
      res.write(`: connected${node === undefined ? "" : ` to node ${node}`}\nretry: 1000\n\n`);
      const c: Client = { res, node, behind: false };
      clients.add(c);
      if (node !== undefined) {
        let set = byNode.get(node);
        if (set === undefined) byNode.set(node, (set = new Set()));
        set.add(c);
      }
      res.write(`event: overview\ndata: ${overviewJson(p)}\n\n`);
      req.on("close", () => {
        clients.delete(c);
        if (node === undefined) return;
        const set = byNode.get(node);
        set?.delete(c);
        if (set?.size === 0) byNode.delete(node);
      });
    },
    get clients() {
      return clients.size;
    },
    close() {
      changes.unsubscribe();
      clearInterval(interval);
      if (pending !== undefined) clearTimeout(pending);
      for (const c of clients) c.res.end();
      clients.clear();
      byNode.clear();
    },
  };
}
