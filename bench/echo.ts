/**
 * Anchor: a bare NATS responder, the floor for any request/reply answer.
 * `node dist/bench/echo.js <url> <bytes>`
 *
 * Answers every request on `bench.echo` with the same fixed payload of
 * <bytes> bytes (the driver passes the size of the service's answer for one
 * node's needs). Reports one JSON line once it is subscribed, then answers
 * until SIGTERM/SIGINT (or an hour at most).
 */
import { connectBench, ECHO_SUBJECT, report } from "./common.js";

const MAX_LIFE_MS = 60 * 60 * 1000;

async function main(): Promise<void> {
  const url = process.argv[2];
  const bytes = Number(process.argv[3]);
  if (!url || !Number.isInteger(bytes) || bytes < 0) throw new Error("usage: echo.js <nats-url> <bytes>");
  const payload = new TextEncoder().encode("x".repeat(bytes));
  const nc = await connectBench(url, "bench-echo");
  let served = 0;
  let failed = 0;
  nc.subscribe(ECHO_SUBJECT, {
    callback: (err, msg) => {
      // Never let an exception escape a subscription callback.
      if (err) return;
      try {
        msg.respond(payload);
        served++;
      } catch {
        failed++;
      }
    },
  });
  await nc.flush();
  report({ what: "echo", ready: true, bytes, subject: ECHO_SUBJECT });
  const stop = (): void => {
    process.stderr.write(JSON.stringify({ what: "echo", served, failed }) + "\n");
    void nc.close().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  setTimeout(stop, MAX_LIFE_MS).unref();
  await nc.closed();
}

main().catch((err: unknown) => {
  report({ what: "echo", error: (err as Error).message ?? String(err) });
  process.exit(1);
});
