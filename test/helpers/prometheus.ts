/**
 * The real Prometheus and promtool for the alert rules' tests (Debian's
 * `prometheus` package: /usr/bin/prometheus, /usr/bin/promtool): where they
 * are, a server on a free loopback port with a temporary store scraping the
 * targets a test names and evaluating the rules it is given, and its HTTP API
 * (`/api/v1/alerts`, `/api/v1/rules`, `/api/v1/query`, `/api/v1/targets`).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { executable, toolForTests, type Found } from "./tool.js";
import { parse, stringify } from "yaml";
import { freePort } from "./nats-server.js";
import { httpGet } from "./http-get.js";

// dist/test/helpers/ -> the repository's rules
export const RULES_FILE = fileURLToPath(new URL("../../../deploy/prometheus/mesh-provisioner-rules.yaml", import.meta.url));
export const RULES_TEST_FILE = fileURLToPath(new URL("../../../deploy/prometheus/mesh-provisioner-rules.test.yaml", import.meta.url));

/** A tool of Debian's `prometheus` package: PATH's, else /usr/bin's; or why there is none. */
export function findPrometheusTool(name: "prometheus" | "promtool", env: NodeJS.ProcessEnv = process.env): Found {
  for (const dir of [...(env["PATH"] ?? "").split(delimiter), "/usr/bin"]) {
    if (dir && executable(join(dir, name))) return { bin: join(dir, name) };
  }
  return {
    missing: `${name} is not installed (not on PATH or in /usr/bin): install Debian's prometheus package (apt-get install prometheus), as .ci/run does`,
  };
}

/**
 * A tool for a test file: its path, or why the file's tests are skipped. With
 * CI=true a missing tool is not a skip but a failing test of its own, which
 * says how to install it.
 */
export function prometheusToolForTests(name: "prometheus" | "promtool"): { bin: string; skip: string | false } {
  return toolForTests(findPrometheusTool(name), name, "the alert rules' tests must run");
}

export interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run promtool with `args` (bounded in time). */
export function promtool(bin: string, args: readonly string[], cwd?: string): Ran {
  const r = spawnSync(bin, args, { encoding: "utf8", timeout: 60_000, ...(cwd === undefined ? {} : { cwd }) });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? (r.error ? String(r.error) : "") };
}

/** An alerting rule of a rules file, as written. */
export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

interface RuleFile {
  groups: { name: string; interval?: string; rules: (AlertRule | { record: string; expr: string })[] }[];
}

/** The alerting rules of a rules file's text, every group's, in order. */
export function alertRules(text: string): AlertRule[] {
  const doc = parse(text) as RuleFile;
  return doc.groups.flatMap((g) => g.rules.filter((r): r is AlertRule => "alert" in r));
}

/**
 * The shipped rules made fit for a test minutes long: every alert's `for:`
 * becomes `forSeconds` and nothing else changes (every expression, label and
 * annotation is kept as shipped). The shipped `for:` durations are minutes so
 * that a restart, a handover or a first sync never pages; the conditions are
 * the ones the service's metrics meet when the fault is real.
 */
export function withShortFor(text: string, forSeconds: number): string {
  const doc = parse(text) as RuleFile;
  for (const g of doc.groups) {
    for (const r of g.rules) if ("alert" in r) (r as { for?: string }).for = `${forSeconds}s`;
  }
  return stringify(doc, { lineWidth: 0 });
}

export interface ActiveAlert {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly state: "pending" | "firing";
  readonly activeAt: string;
  readonly value: string;
}

export interface PrometheusOptions {
  /** The rules file's text to evaluate. */
  readonly rules: string;
  /** host:port of each target of the job `mesh-provisioner` (scraped at /metrics). */
  readonly targets: readonly string[];
  /** Scrape and evaluation interval in seconds (default 1). */
  readonly intervalSeconds?: number;
}

export interface RunningPrometheus {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly dir: string;
  /** The alerts pending or firing, from /api/v1/alerts. */
  alerts(): Promise<ActiveAlert[]>;
  /** The rule groups from /api/v1/rules. */
  rules(): Promise<{ name: string; rules: { name: string; type: string; health: string; lastError?: string; state?: string }[] }[]>;
  /** An instant query's result vector. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** The active targets: their scrape URL and health. */
  targets(): Promise<{ scrapeUrl: string; health: string; lastError: string }[]>;
  /** Prometheus's own log, for failure messages. */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function api<T>(base: string, path: string): Promise<T> {
  const got = await httpGet(`${base}${path}`, {}, 5000);
  if (got.status !== 200) throw new Error(`GET ${path}: status ${got.status}: ${got.body.slice(0, 300)}`);
  const body = JSON.parse(got.body) as { status: string; data: T; error?: string };
  if (body.status !== "success") throw new Error(`GET ${path}: ${body.error ?? got.body.slice(0, 300)}`);
  return body.data;
}

/**
 * Start Prometheus (the binary `bin`) on a free loopback port with a
 * temporary store, scraping `targets` and evaluating `rules`; resolves once
 * it answers /-/ready. Always `await stop()`.
 */
export async function startPrometheus(bin: string, opts: PrometheusOptions): Promise<RunningPrometheus> {
  const every = `${opts.intervalSeconds ?? 1}s`;
  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), "mesh-provisioner-prometheus-"));
    const rulesFile = join(dir, "rules.yaml");
    writeFileSync(rulesFile, opts.rules);
    const config = {
      global: { scrape_interval: every, evaluation_interval: every, scrape_timeout: every },
      rule_files: [rulesFile],
      scrape_configs: [{ job_name: "mesh-provisioner", metrics_path: "/metrics", static_configs: [{ targets: [...opts.targets] }] }],
    };
    const configFile = join(dir, "prometheus.yml");
    writeFileSync(configFile, stringify(config));
    const port = await freePort();
    const logFile = join(dir, "prometheus.log");
    const fd = openSync(logFile, "a");
    let child: ChildProcess;
    try {
      child = spawn(
        bin,
        [
          `--config.file=${configFile}`,
          `--storage.tsdb.path=${join(dir, "data")}`,
          `--web.listen-address=127.0.0.1:${port}`,
          // Debian's package defaults the console files to /etc/prometheus; none are needed here.
          `--web.console.templates=${dir}`,
          `--web.console.libraries=${dir}`,
        ],
        { stdio: ["ignore", fd, fd] },
      );
    } finally {
      closeSync(fd);
    }
    const me = child;
    const exited = new Promise<void>((r) => me.once("exit", () => r()));
    const logTail = (n = 30): string => {
      try {
        return readFileSync(logFile, "utf8").trim().split("\n").slice(-n).join("\n");
      } catch {
        return "(no log)";
      }
    };
    const stop = async (): Promise<void> => {
      if (me.exitCode === null && me.signalCode === null) {
        me.kill("SIGTERM");
        const t = setTimeout(() => me.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    };
    process.once("exit", () => me.kill("SIGKILL"));
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 20_000;
    let ready = false;
    while (Date.now() < deadline && me.exitCode === null) {
      const got = await httpGet(`${base}/-/ready`, {}, 1000).catch(() => undefined);
      if (got?.status === 200) {
        ready = true;
        break;
      }
      await sleep(100);
    }
    if (!ready) {
      const tail = logTail();
      await stop();
      if (attempt < 3 && /address already in use/i.test(tail)) continue;
      throw new Error(`prometheus (${bin}) was not ready within 20 s; its log:\n${tail}`);
    }
    return {
      url: base,
      dir,
      alerts: async () => (await api<{ alerts: ActiveAlert[] }>(base, "/api/v1/alerts")).alerts,
      rules: async () => (await api<{ groups: Awaited<ReturnType<RunningPrometheus["rules"]>> }>(base, "/api/v1/rules")).groups,
      query: async (expr) =>
        (await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(base, `/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
      targets: async () => (await api<{ activeTargets: { scrapeUrl: string; health: string; lastError: string }[] }>(base, "/api/v1/targets")).activeTargets,
      logTail,
      stop,
    };
  }
}
