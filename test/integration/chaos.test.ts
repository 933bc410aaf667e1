/**
 * A short seeded chaos run (issue 14), as `npm run chaos` makes it: 45 s of
 * faults from the plan of seed 42 (every kind of fault once, a malformed
 * burst twice, the flood overlapping a stream leader's loss, the site's
 * leaf node link cut twice), then the quiet
 * period and the checks. The run is a child process; its exit status says
 * whether every check passed, and its history (JSON) is read back to see that
 * the faults were injected. At most about 90 s on the project's 2-core
 * machine; the load is kept small (three node writers, two readers, a 600-key
 * flood).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const RUN = fileURLToPath(new URL("../../chaos/run.js", import.meta.url));
const SEED = 42;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runChaos(args: string[], timeoutMs: number): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RUN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    // SIGTERM lets the run stop its own children before it exits.
    const timer = setTimeout(() => child.kill("SIGTERM"), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test(`a 45 s chaos run (seed ${SEED}) passes every check`, { timeout: 150_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "chaos-test-"));
  try {
    const out = join(dir, "history.json");
    const started = Date.now();
    const r = await runChaos(["--minutes", "0.75", "--seed", String(SEED), "--quiet", "20", "--flood-keys", "600", "--out", out], 140_000);
    const elapsed = Date.now() - started;
    console.log(`MEASURED chaos short_run_ms=${elapsed}`);
    assert.equal(r.code, 0, `the chaos run failed (exit ${r.code}):\n${r.stdout}\n${r.stderr.slice(-3000)}`);
    const h = JSON.parse(readFileSync(out, "utf8")) as {
      meta: { seed: number; plan: { kind: string }[] };
      checks: { name: string; status: string }[];
      faults: { kind: string; skipped?: string }[];
      writes: { outcome?: string }[];
      reads: { status?: unknown; reader?: string; stale?: unknown }[];
    };
    assert.equal(h.meta.seed, SEED);
    assert.deepEqual(
      h.checks.filter((c) => c.status === "fail"),
      [],
    );
    assert.ok(h.checks.filter((c) => c.status === "pass").length >= 6, JSON.stringify(h.checks));
    // The plan of this seed holds every kind; each was injected (not skipped for lack of a target).
    const injected = new Set(h.faults.filter((f) => f.skipped === undefined).map((f) => f.kind));
    for (const kind of new Set(h.meta.plan.map((f) => f.kind))) assert.ok(injected.has(kind), `${kind} was injected: ${JSON.stringify(h.faults)}`);
    assert.ok(h.writes.filter((w) => w.outcome === "ack").length > 100, "the writers wrote");
    assert.ok(h.reads.filter((x) => x.status === 200).length > 20, "the readers read");
    // The site: its link was cut, and through each cut its reader was answered, saying stale.
    assert.ok(h.faults.filter((f) => f.kind === "cut-site-link" && f.skipped === undefined).length >= 1, "the site's link was cut");
    const siteCheck = h.checks.find((c) => c.name.includes("site"));
    assert.equal(siteCheck?.status, "pass", JSON.stringify(siteCheck));
    assert.ok(
      h.reads.filter((x) => x.reader === "site" && x.stale !== undefined && x.status === 200).length >= 5,
      "the site answered, saying stale, while cut",
    );
    assert.match(r.stdout, /^checks:$/m, "the summary was printed");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
