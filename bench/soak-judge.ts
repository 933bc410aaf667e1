/**
 * Judge a soak's JSON again (`npm run soak` writes it), with another window
 * or tolerance, or with the verdicts of a newer soak-verdict.ts than the run
 * had: `node dist/bench/soak-judge.js FILE.json [--window-minutes W] [--tolerance T]`.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { verdictLines } from "./soak-report.js";
import { floorVerdict, heldSamples, type MinuteMemory, type RssSample } from "./soak-verdict.js";

const USAGE = "usage: node dist/bench/soak-judge.js FILE.json [--window-minutes W] [--tolerance T]";
/** As soak.ts: a run shorter than this gets its verdict with a warning. */
const JUDGE_FROM_MINUTES = 60;

interface SoakJson {
  readonly config?: { readonly windowMinutes?: number; readonly tolerance?: number };
  readonly samples: readonly RssSample[];
  readonly minutes: readonly MinuteMemory[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { "window-minutes": { type: "string" }, tolerance: { type: "string" } } });
const file = positionals[0];
if (file === undefined || positionals.length !== 1) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
const run = JSON.parse(readFileSync(file, "utf8")) as SoakJson;
const windowMinutes = Number(values["window-minutes"] ?? run.config?.windowMinutes ?? 15);
const tolerance = Number(values.tolerance ?? run.config?.tolerance ?? 2);
if (!(windowMinutes > 0) || !(tolerance >= 0) || !Array.isArray(run.samples) || !Array.isArray(run.minutes)) {
  process.stderr.write(`${USAGE}\n(a window above 0, a tolerance of 0 or more, and a soak's JSON with samples and minutes)\n`);
  process.exit(2);
}
const judged = { windowMs: windowMinutes * 60_000, toleranceMiBPerHour: tolerance };
const last = run.samples[run.samples.length - 1];
const minutes = last ? Math.round(last.atMs / 6_000) / 10 : 0;
const lines = verdictLines(
  floorVerdict(run.samples, judged),
  floorVerdict(heldSamples(run.minutes), judged, "RSS less V8's free heap"),
  minutes,
  JUDGE_FROM_MINUTES,
);
process.stdout.write(`${lines.join("\n")}\n`);
