/**
 * The HTTP listener, bound before the service joins the mesh (I/O): a port in
 * use, or an address the host does not have, is a configuration error said
 * at once, before the connection, the seat or the first sync. Until the
 * service hands it its handler, `/healthz` answers 200 (the process is alive)
 * and every other path 503 (starting), as `/readyz` does until the first sync.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Failure } from "../failure.js";
import { HttpErrorCodes } from "./errors.js";

export interface Listening {
  readonly server: Server;
  /** Where it listens, as a URL (port 0 resolved to the port it was given). */
  readonly url: string;
  /** Hand every request from now on to `handler`. */
  serve(handler: RequestListener): void;
}

/** Why listening failed, in words, for the errors an operator can fix. */
function why(err: unknown): string {
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case "EADDRINUSE":
      return "the port is in use by another process: stop it or choose another port";
    case "EADDRNOTAVAIL":
      return "this host has no such address: use one of its addresses, 0.0.0.0 or 127.0.0.1";
    case "EACCES":
      return "permission denied: ports below 1024 need privileges; choose a port from 1024";
    default:
      return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ");
  }
}

function starting(req: IncomingMessage, res: ServerResponse): void {
  const alive = new URL(req.url ?? "/", "http://starting").pathname === "/healthz";
  const { code, status } = HttpErrorCodes.STARTING;
  res.writeHead(alive ? 200 : status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(alive ? '{"status":"ok"}' : JSON.stringify({ ready: false, starting: true, error: { code, message: "starting: not connected and synced yet" } }));
}

/** Listen on `host`:`port`; a failure is a CONFIG Failure naming `from` (the flag or its variable) and why. */
export async function listenHttp(host: string, port: number, from = "--http"): Promise<Listening> {
  let handler: RequestListener = starting;
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    const at = `${host.includes(":") ? `[${host}]` : host}:${port}`;
    server.once("error", (err) => reject(new Failure("CONFIG", `${from} ${at}: cannot listen there: ${why(err)}`, { cause: err })));
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    server,
    url: `http://${addr.family === "IPv6" ? `[${addr.address}]` : addr.address}:${addr.port}`,
    serve(h) {
      handler = h;
    },
  };
}
