/**
 * A connection with no server behind it, for unit tests of the client's
 * watch: subscriptions hear nothing, the test sends the connection's status
 * events, and `$SRV.STATS` is answered with the replies the test sets (none:
 * no responders).
 */
import type { NatsConnection } from "@nats-io/nats-core";
import type { StatsReply } from "../../src/protocol/stats.js";

export interface FakeConnection {
  readonly nc: NatsConnection;
  /** Sends a status event (`reconnect`, `slowConsumer`, ...). */
  status(type: string): void;
  /** What every `$SRV.STATS` request is answered with from now on. */
  setStats(replies: readonly StatsReply[]): void;
}

export function fakeConnection(): FakeConnection {
  const waiting: ((r: IteratorResult<{ type: string }>) => void)[] = [];
  const queued: { type: string }[] = [];
  let stats: readonly StatsReply[] = [];
  const statuses = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const s = queued.shift();
        return s !== undefined ? Promise.resolve({ value: s, done: false }) : new Promise<IteratorResult<{ type: string }>>((r) => waiting.push(r));
      },
    }),
    stop: () => {
      for (const w of waiting.splice(0)) w({ value: undefined, done: true });
    },
  };
  const nc = {
    subscribe: () => ({ unsubscribe: () => undefined }),
    status: () => statuses,
    flush: async () => undefined,
    requestMany: async () => {
      if (stats.length === 0) throw new Error("no responders");
      const replies = stats.map((r) => ({ json: () => r }));
      return (async function* () {
        yield* replies;
      })();
    },
  } as unknown as NatsConnection;
  const status = (type: string): void => {
    const w = waiting.shift();
    if (w !== undefined) w({ value: { type }, done: false });
    else queued.push({ type });
  };
  return { nc, status, setStats: (replies) => (stats = replies) };
}
