/**
 * The operator's window over HTTP (I/O): `/healthz` (the process is up),
 * `/readyz` (200 only once the projections are synced and the bus is
 * connected, 503 from the moment a graceful stop begins), `/metrics` (Prometheus text), `/` (the dashboard's page), and
 * the dashboard's data: `/api/overview`, `/api/nodes`, `/api/node?node=`,
 * the mesh-wide lists (mesh-api.ts), the instances (instances.ts), the change
 * rate (counted by the provisioner, src/overview/rate-watch.ts) and the event stream `/events` (see dashboard-api.ts and
 * events.ts; the format is in docs/dashboard.md). With a token, the data and the event stream ask
 * for it; the page itself, `/healthz`, `/readyz` and `/metrics` stay open.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Listening } from "./listen.js";
import type { Logger } from "../log.js";
import { wrapError } from "mesh-provisioner-client/protocol/errors.js";
import { HttpError, type HttpFailure } from "./errors.js";
import type { ProvisionerReader } from "./reader.js";
import { WHATS } from "mesh-provisioner-client/keys";
import { DASHBOARD_HTML } from "./dashboard.js";
import { nodeJson, nodeParam, nodeQuery, nodesJson, overviewJson } from "./dashboard-api.js";
import { startEventHub } from "./events.js";
import { tokenCheck } from "./auth.js";
import {
  collectionJson,
  collectionParam,
  collectionsJson,
  kindJson,
  listQuery,
  outOfShapeJson,
  registryJson,
  tokenParam,
  unansweredJson,
  whatParam,
} from "./mesh-api.js";
import { askInstances, instancesJson, reusing } from "./instances.js";

/** What `/metrics` serves: the registry's Prometheus text and its content type (src/metrics/ makes it). */
export interface MetricsEndpoint {
  readonly registry: { readonly contentType: string; metrics(): Promise<string> };
}

export interface HttpOptions {
  /** The listener, bound before the service started (listen.ts). */
  readonly listening: Listening;
  readonly provisioner: ProvisionerReader;
  readonly metrics: MetricsEndpoint;
  readonly log: Logger;
  /** When set, `/api/*` and `/events` need it as a bearer token. */
  readonly token?: string;
}

export interface HttpHandle {
  readonly url: string;
  /** Close the event streams, let requests in flight finish for up to `graceMs`, then close every connection. */
  close(graceMs?: number): Promise<void>;
}

/** Ready: connected, every projection synced, and not stopping (a stopping instance is not ready from the signal on). */
export function readiness(p: ProvisionerReader): { ready: boolean; stopping: boolean; connected: boolean; synced: Record<string, boolean> } {
  const synced = Object.fromEntries(WHATS.map((w) => [w, p.projections[w].isSynced]));
  const connected = p.connected();
  const stopping = p.stopping();
  return { ready: !stopping && connected && Object.values(synced).every(Boolean), stopping, connected, synced };
}

export function startHttp(opts: HttpOptions): HttpHandle {
  const { provisioner: p, metrics, log } = opts;
  const events = startEventHub(p);
  const instances = reusing(() => askInstances(p.nc));
  const allowed = tokenCheck(opts.token);

  const send = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
    res.end(body);
  };
  /**
   * The dashboard's data, with the projections' revisions it was read at
   * (registry, needs, applied, collect). The body is built in the same turn,
   * so equal revisions on two answers mean nothing was applied between them:
   * the page compares them with the stream's first overview to know whether
   * what it read before the stream opened is still current.
   */
  const sendData = (res: ServerResponse, body: string): void =>
    send(res, 200, "application/json", body, { "x-mesh-revisions": WHATS.map((w) => p.projections[w].revision).join(",") });
  const sendError = (res: ServerResponse, err: HttpFailure): void =>
    send(
      res,
      err.status >= 400 && err.status < 600 ? err.status : 500,
      "application/json",
      JSON.stringify({ error: { code: err.code, message: err.message } }),
    );

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://dashboard");
    const path = url.pathname;
    switch (path) {
      case "/healthz":
        return send(res, 200, "application/json", '{"status":"ok"}');
      case "/readyz": {
        const r = readiness(p);
        return send(res, r.ready ? 200 : 503, "application/json", JSON.stringify(r));
      }
      case "/metrics":
        return send(res, 200, metrics.registry.contentType, await metrics.registry.metrics());
      case "/":
        return send(res, 200, "text/html; charset=utf-8", DASHBOARD_HTML);
      case "/favicon.ico":
        res.writeHead(204).end();
        return;
    }
    if (path === "/events" || path.startsWith("/api/")) {
      if (!allowed(req.headers.authorization, url.searchParams.get("access_token"))) {
        res.setHeader("www-authenticate", 'Bearer realm="mesh-provisioner"');
        return sendError(
          res,
          new HttpError("UNAUTHORIZED", "this dashboard needs its token: send Authorization: Bearer <token> (or ?access_token= on /events)"),
        );
      }
      switch (path) {
        case "/api/overview":
          return sendData(res, overviewJson(p));
        case "/api/nodes":
          return sendData(res, nodesJson(p, nodeQuery(url.searchParams)));
        case "/api/node":
          return sendData(res, nodeJson(p, nodeParam(url.searchParams)));
        case "/api/registry":
          return sendData(res, registryJson(p, listQuery(url.searchParams)));
        case "/api/kind":
          return sendData(res, kindJson(p, tokenParam(url.searchParams, "kind"), listQuery(url.searchParams)));
        case "/api/unanswered":
          return sendData(res, unansweredJson(p, listQuery(url.searchParams)));
        case "/api/out-of-shape":
          return sendData(res, outOfShapeJson(p, whatParam(url.searchParams), listQuery(url.searchParams)));
        case "/api/collections":
          return sendData(res, collectionsJson(p, listQuery(url.searchParams)));
        case "/api/collection":
          return sendData(res, collectionJson(p, collectionParam(url.searchParams), listQuery(url.searchParams)));
        case "/api/instances":
          return sendData(res, JSON.stringify(instancesJson(await instances(), p.seat.instance)));
        case "/api/rate":
          return sendData(res, JSON.stringify(p.rate.series(Date.now())));
        case "/events": {
          const node = url.searchParams.has("node") ? nodeParam(url.searchParams) : undefined;
          return events.open(req, res, node);
        }
      }
    }
    return sendError(
      res,
      new HttpError(
        "NOT_FOUND",
        `not found: ${path}; try /, /api/overview, /api/nodes, /api/node?node=, /api/registry, /api/kind?kind=, /api/unanswered, /api/out-of-shape, /api/collections, /api/collection?collection=, /api/instances, /api/rate, /events, /healthz, /readyz, /metrics`,
      ),
    );
  };

  const { server, url } = opts.listening;
  opts.listening.serve((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const e = wrapError("INTERNAL", "the HTTP request failed", err);
      if (e.code !== "E_BAD_REQUEST") log.warn({ err: e.message, url: req.url }, "an HTTP request failed");
      if (!res.headersSent) sendError(res, e);
      else res.end();
    });
  });
  log.info({ url, tokenRequired: opts.token !== undefined }, "serving /healthz, /readyz, /metrics and the dashboard");
  return {
    url,
    async close(graceMs = 1000) {
      events.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed.finally(() => clearTimeout(cut));
    },
  };
}
