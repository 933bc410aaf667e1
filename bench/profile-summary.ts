/**
 * Where a process spent its CPU: a summary of a V8 `.cpuprofile` (as written
 * by `node --cpu-prof`, which `npm run bench -- --cpu-prof` passes to the
 * service and the bare watch).
 *
 *   node dist/bench/profile-summary.js FILE.cpuprofile [--from-ms A] [--to-ms B] [--last-ms C] [--top N] [--inclusive F,G]
 *
 * Prints self time by area (this project's files, each @nats-io package, other
 * packages, node internals, gc, idle) and the top functions by self time.
 * The window (ms from the profile's start, or its last C ms) picks a phase:
 * the first sync is at the start, the bench's put -> visible phase at the end.
 * `--inclusive F,G`: for each function named F (or G), the time of the
 * samples with it on the stack (its callees included), and the functions
 * that time was spent in.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function area(url: string, fn: string): string {
  if (fn === "(garbage collector)") return "gc";
  if (fn === "(idle)") return "idle";
  if (fn === "(program)") return "(program: native, outside JS)";
  const nats = /node_modules\/(@nats-io\/[^/]+)\//.exec(url);
  if (nats) return nats[1]!;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/dist\/((?:src|bench)\/[^/]+)\//.exec(url);
  if (own) return own[1]!;
  if (url.startsWith("node:") || url === "") return "node internals";
  return url;
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args[0];
  if (!file) throw new Error("usage: profile-summary.js FILE.cpuprofile [--from-ms A] [--to-ms B] [--last-ms C] [--top N] [--inclusive F,G]");
  const opt = (name: string): number | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : undefined;
  };
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const totalMs = (p.endTime - p.startTime) / 1000;
  const last = opt("--last-ms");
  const from = last !== undefined ? totalMs - last : (opt("--from-ms") ?? 0);
  const to = last !== undefined ? totalMs : (opt("--to-ms") ?? totalMs);
  const top = opt("--top") ?? 25;

  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfMs = new Map<number, number>();
  let t = 0; // µs since start
  for (let i = 0; i < p.samples.length && i < p.timeDeltas.length; i++) {
    t += p.timeDeltas[i]!;
    const next = p.timeDeltas[i + 1] ?? 0;
    const atMs = t / 1000;
    if (atMs < from || atMs > to) continue;
    const id = p.samples[i]!;
    selfMs.set(id, (selfMs.get(id) ?? 0) + next / 1000);
  }

  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  let sum = 0;
  for (const [id, ms] of selfMs) {
    const n = byId.get(id);
    if (!n) continue;
    const { functionName, url } = n.callFrame;
    const a = area(url, functionName);
    areas.set(a, (areas.get(a) ?? 0) + ms);
    const name = nameOf(n);
    fns.set(name, (fns.get(name) ?? 0) + ms);
    if (a !== "idle") sum += ms;
  }
  const pct = (ms: number): string => `${((100 * ms) / Math.max(sum, 1e-9)).toFixed(1).padStart(5)}%`;
  const sorted = (m: Map<string, number>): [string, number][] => [...m].sort((a, b) => b[1] - a[1]);
  console.log(`${file}: window ${from.toFixed(0)}–${to.toFixed(0)} ms of ${totalMs.toFixed(0)} ms; busy ${sum.toFixed(0)} ms (% of busy, idle excluded)`);
  console.log("\nby area:");
  for (const [a, ms] of sorted(areas)) if (a !== "idle") console.log(`  ${pct(ms)} ${ms.toFixed(0).padStart(7)} ms  ${a}`);
  console.log(`  (idle ${(areas.get("idle") ?? 0).toFixed(0)} ms)`);
  console.log(`\ntop ${top} functions by self time:`);
  for (const [name, ms] of sorted(fns)
    .filter(([n]) => !n.startsWith("(idle)"))
    .slice(0, top)) {
    console.log(`  ${pct(ms)} ${ms.toFixed(0).padStart(7)} ms  ${name}`);
  }
  const inclusive = args[args.indexOf("--inclusive") + 1];
  if (args.includes("--inclusive") && inclusive) printInclusive(p, byId, selfMs, inclusive.split(","), pct);
}

function nameOf(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|dist)\//, "$1/")}:${lineNumber + 1}` : "";
  return `${functionName || "(anonymous)"} ${where}`.trim();
}

/** Each named function's time with its callees, and where that time went (self time of what it called). */
function printInclusive(
  p: Profile,
  byId: ReadonlyMap<number, ProfileNode>,
  selfMs: ReadonlyMap<number, number>,
  names: readonly string[],
  pct: (ms: number) => string,
): void {
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  for (const name of names) {
    let total = 0;
    const within = new Map<string, number>();
    for (const [id, ms] of selfMs) {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        if (byId.get(at)?.callFrame.functionName !== name) continue;
        total += ms;
        const leaf = nameOf(byId.get(id)!);
        within.set(leaf, (within.get(leaf) ?? 0) + ms);
        break;
      }
    }
    console.log(`\n${name}, with what it calls: ${pct(total)} ${total.toFixed(0)} ms; spent in:`);
    for (const [leaf, ms] of [...within].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${pct(ms)} ${ms.toFixed(0).padStart(7)} ms  ${leaf}`);
  }
}

try {
  main();
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
}
