/**
 * The graceful stop's bound (src/stop.ts) and how `serve` enforces it
 * (`stopThenExit` in src/cli/serve.ts, run in a child process so that its
 * process.exit is observed): exit 0 once stopped, 1 when a step failed or
 * the stop overran its bound. docs/operations.md states the default bound.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { STOP_LIMITS, stopBound, TIMED_OUT, within } from "../../src/stop.js";
import { parseDuration } from "../../src/duration.js";
import { SERVE_DEFAULTS } from "../../src/defaults.js";

const SERVE = new URL("../../src/cli/serve.js", import.meta.url).href;
const OPERATIONS = fileURLToPath(new URL("../../../docs/operations.md", import.meta.url));

test("the bound is the longer of the verb's drain and the seat's handover, plus the drain, the HTTP close and a margin", () => {
  const l = STOP_LIMITS;
  const b = stopBound(5000);
  assert.equal(b.verbMs, 5000 + l.verbRoundTripMs);
  assert.equal(b.handoverMs, l.writeMs + l.checkpointsMs + l.releaseMs);
  assert.equal(b.totalMs, Math.max(b.verbMs, b.handoverMs) + l.drainMs + l.httpMs + l.marginMs);
  // A --max-wait longer than the handover makes the verb's drain the longer branch.
  assert.equal(stopBound(60_000).totalMs, 60_000 + l.verbRoundTripMs + l.drainMs + l.httpMs + l.marginMs);
});

test("docs/operations.md states the bound with the defaults", () => {
  const seconds = stopBound(parseDuration(SERVE_DEFAULTS.maxWait)).totalMs / 1000;
  assert.match(readFileSync(OPERATIONS, "utf8"), new RegExp(`\\b${seconds} s\\b`), `operations.md names ${seconds} s`);
});

test("within gives the promise's value, or TIMED_OUT once its time has passed", async () => {
  assert.equal(await within(Promise.resolve(7), 1000), 7);
  assert.equal(await within(new Promise(() => undefined), 10), TIMED_OUT);
  await assert.rejects(within(Promise.reject(new Error("no")), 1000), /no/);
});

/** Run stopThenExit in a child on a Served whose shutdown behaves as `shutdown` (JS source) says. */
function runStop(shutdown: string, boundMs: number): { code: number | null; ms: number; stderr: string } {
  const script = `
    const { stopThenExit } = await import(${JSON.stringify(SERVE)});
    const log = { error: (o, m) => process.stderr.write(JSON.stringify({ ...o, msg: m }) + "\\n") };
    stopThenExit({ stopBoundMs: ${boundMs}, log, shutdown: () => ${shutdown} }, "SIGTERM");`;
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 10_000 });
  return { code: r.status, ms: Date.now() - t0, stderr: r.stderr };
}

test("a stop that finishes exits 0", () => {
  const r = runStop("Promise.resolve()", 5000);
  assert.equal(r.code, 0, r.stderr);
});

test("a stop whose step failed exits 1 and says so", () => {
  const r = runStop('Promise.reject(new Error("the drain broke"))', 5000);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /the stop did not finish cleanly/);
});

test("a stop that overruns its bound exits 1 at the bound and says so", () => {
  const r = runStop("new Promise(() => undefined)", 300);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /the stop overran its bound/);
  assert.match(r.stderr, /"boundMs":300/);
});
