/**
 * The operator's window over HTTP (I/O): `/healthz` (the process is up),
 * `/readyz` (200 only once the projections are synced and the bus is
 * connected), `/metrics` (Prometheus text), `/` (a live dashboard),
 * `/api/snapshot` (what the dashboard starts from) and `/events`
 * (server-sent events: the same changes the feed publishes).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { merge, map, type Subscription } from "rxjs";
import type { Logger } from "../log.js";
import { wrapError } from "../errors.js";
import type { Provisioner } from "../main.js";
import { WHATS, type What } from "../keys/mod.js";
import { feedEvent } from "../feed/events.js";
import { answeredBy, wholeAnswer } from "../verb/answer.js";
import type { Metrics } from "./metrics.js";
import { DASHBOARD_HTML } from "./dashboard.js";

export interface HttpOptions {
  readonly host: string;
  readonly port: number;
  readonly provisioner: Provisioner;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Entries per bucket in the dashboard's snapshot (the page is for people, not for a million keys). */
  readonly snapshotLimit?: number;
}

export interface HttpHandle {
  readonly url: string;
  close(): Promise<void>;
}

export function readiness(p: Provisioner): { ready: boolean; connected: boolean; synced: Record<string, boolean> } {
  const synced = Object.fromEntries(WHATS.map((w) => [w, p.projections[w].isSynced]));
  const connected = p.connected();
  return { ready: connected && Object.values(synced).every(Boolean), connected, synced };
}

function snapshot(p: Provisioner, limit: number): string {
  const registry = p.projections.registry.store;
  const pages = WHATS.map((w) => `"${w}":${wholeAnswer(w, p.projections[w].store, registry, limit)}`);
  const seat = JSON.stringify({ holder: p.seat.holder ?? null, isHolder: p.seat.isHolder, instance: p.seat.instance });
  return `{"seat":${seat},${pages.join(",")}}`;
}

export async function startHttp(opts: HttpOptions): Promise<HttpHandle> {
  const { provisioner: p, metrics, log } = opts;
  const clients = new Set<ServerResponse>();
  const isAnswered = (kind: string): boolean => answeredBy(p.projections.registry.store)(kind);
  const changes: Subscription = merge(
    ...WHATS.map((w: What) => p.projections[w].changes$.pipe(map((change) => ({ w, change })))),
  ).subscribe(({ w, change }) => {
    if (clients.size === 0) return;
    const line = `data: ${feedEvent(w, change, w === "needs" ? isAnswered : undefined)}\n\n`;
    for (const c of clients) c.write(line);
  });

  const send = (res: ServerResponse, status: number, type: string, body: string): void => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    switch (path) {
      case "/healthz":
        return send(res, 200, "application/json", '{"status":"ok"}');
      case "/readyz": {
        const r = readiness(p);
        return send(res, r.ready ? 200 : 503, "application/json", JSON.stringify(r));
      }
      case "/metrics":
        return send(res, 200, metrics.registry.contentType, await metrics.registry.metrics());
      case "/api/snapshot":
        return send(res, 200, "application/json", snapshot(p, opts.snapshotLimit ?? 5000));
      case "/events":
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
        res.write(": connected\n\n");
        clients.add(res);
        req.on("close", () => clients.delete(res));
        return;
      case "/":
        return send(res, 200, "text/html; charset=utf-8", DASHBOARD_HTML);
      default:
        return send(res, 404, "application/json", '{"error":"not found: try /, /healthz, /readyz, /metrics"}');
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.warn({ err: (err as Error).message, url: req.url }, "an HTTP request failed");
      if (!res.headersSent) send(res, 500, "application/json", JSON.stringify({ error: (err as Error).message }));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(wrapError("CONFIG", `cannot serve HTTP on ${opts.host}:${opts.port} (--http)`, err)));
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const url = `http://${addr.family === "IPv6" ? `[${addr.address}]` : addr.address}:${addr.port}`;
  log.info({ url }, "serving /healthz, /readyz, /metrics and the dashboard");
  return {
    url,
    async close() {
      changes.unsubscribe();
      for (const c of clients) c.end();
      clients.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
