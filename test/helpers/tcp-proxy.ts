/**
 * A tiny loopback TCP proxy for tests: clients connect to the proxy's port and
 * are piped to the target. `cut()` drops every connection through it and
 * refuses new ones (each accepted socket is closed at once) until `restore()`,
 * so one client loses its connection while everybody else stays connected.
 * `holdAnswersTo(text, ms)` keeps what the server sends back for a while once
 * a client sends `text` (nothing is lost: it arrives late), as a server too
 * busy to answer that request in time looks. With `delayMs`, every byte is
 * handed on that long after it arrived, in each direction, in the order it
 * arrived: a link with that much latency each way.
 */
import { createConnection, createServer, type Socket } from "node:net";

export interface TcpProxy {
  /** nats://127.0.0.1:PORT of the proxy. */
  readonly url: string;
  readonly port: number;
  readonly isCut: boolean;
  /** Connections accepted and piped so far (refused ones not counted). */
  readonly accepted: number;
  /** Drop every connection now and refuse new ones until restore(). */
  cut(): void;
  /** Accept and pipe connections again. */
  restore(): void;
  /** When a client next sends bytes holding `text`, hold the server's side of its connection for `ms`, then deliver what it sent meanwhile (not with `delayMs`). */
  holdAnswersTo(text: string, ms: number): void;
  close(): Promise<void>;
}

export interface TcpProxyOptions {
  /** Latency added to each direction (ms, default 0): a chunk is written this long after it was read, never before one read earlier. */
  readonly delayMs?: number;
}

/**
 * Hand what `from` reads to `to` `delayMs` later, in order. Unlike a pipe it
 * does not wait for `to` to drain: loopback sockets of a test are fast enough.
 */
function delayedPipe(from: Socket, to: Socket, delayMs: number): void {
  const queue: { due: number; chunk: Buffer }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.due <= now) if (!to.destroyed) to.write(queue.shift()!.chunk);
    if (queue.length > 0) timer = setTimeout(flush, Math.max(0, queue[0]!.due - now));
  };
  from.on("data", (chunk: Buffer) => {
    queue.push({ due: performance.now() + delayMs, chunk });
    timer ??= setTimeout(flush, delayMs);
  });
  from.on("close", () => {
    if (timer !== undefined) clearTimeout(timer);
    queue.length = 0;
  });
}

export async function startTcpProxy(target: { host?: string; port: number }, opts: TcpProxyOptions = {}): Promise<TcpProxy> {
  const host = target.host ?? "127.0.0.1";
  const delayMs = opts.delayMs ?? 0;
  const pairs = new Set<[Socket, Socket]>();
  let isCut = false;
  let accepted = 0;
  let trigger: { text: string; ms: number } | undefined;

  const server = createServer((client) => {
    client.on("error", () => undefined);
    if (isCut) {
      client.destroy();
      return;
    }
    accepted++;
    const upstream = createConnection({ host, port: target.port });
    upstream.on("error", () => undefined);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", drop);
    upstream.on("close", drop);
    if (delayMs > 0) {
      delayedPipe(client, upstream, delayMs);
      delayedPipe(upstream, client, delayMs);
      return;
    }
    client.pipe(upstream);
    upstream.pipe(client);
    // Runs after the pipe has passed the chunk on, in the same turn: no answer to it can have come back yet.
    client.on("data", (chunk: Buffer) => {
      if (trigger === undefined || !chunk.includes(trigger.text)) return;
      const { ms } = trigger;
      trigger = undefined;
      upstream.unpipe(client);
      upstream.pause();
      setTimeout(() => {
        upstream.pipe(client);
        upstream.resume();
      }, ms).unref();
    });
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as { port: number }).port;

  const dropAll = (): void => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };

  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    get isCut() {
      return isCut;
    },
    get accepted() {
      return accepted;
    },
    cut() {
      isCut = true;
      dropAll();
    },
    restore() {
      isCut = false;
    },
    holdAnswersTo(text, ms) {
      trigger = { text, ms };
    },
    async close() {
      isCut = true;
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
