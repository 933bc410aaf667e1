/**
 * The logger: pino. A machine reads JSON lines (piped, under a supervisor, in
 * the tests that spawn the service); a person at a terminal reads pino-pretty's
 * lines. The destination can be passed in so tests can capture lines in memory;
 * the command line writes to stderr, keeping stdout for command output.
 */
import { createRequire } from "node:module";
import { pino, type Logger, type DestinationStream } from "pino";
import { Failure } from "./failure.js";

export type { Logger } from "pino";

/** `json`: one JSON object a line; `pretty`: pino-pretty's readable lines. */
export type LogFormat = "json" | "pretty";

export interface LogOptions {
  level?: string;
  name?: string;
  /** Where lines go; default stderr (fd 2), keeping stdout for command output. */
  destination?: DestinationStream;
  /** Default: JSON to a given destination, else `logFormat()` of stderr and the environment. */
  format?: LogFormat;
}

/**
 * How stderr's lines are written: LOG_FORMAT=json or LOG_FORMAT=pretty when
 * set, else pretty on a terminal and JSON otherwise (a pipe, a file, a
 * supervisor's journal), so whatever parses the lines keeps getting JSON.
 */
export function logFormat(stderr: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): LogFormat {
  const asked = (env["LOG_FORMAT"] ?? "").trim().toLowerCase();
  if (asked === "json" || asked === "pretty") return asked;
  if (asked !== "") throw new Failure("CONFIG", `LOG_FORMAT "${env["LOG_FORMAT"]}" must be json or pretty (unset: pretty on a terminal, JSON otherwise)`);
  return stderr.isTTY === true ? "pretty" : "json";
}

type PinoPretty = typeof import("pino-pretty");

/**
 * A destination that turns each JSON line into pino-pretty's line before it
 * writes it, synchronously, in this thread (no worker transport): a line
 * logged just before process.exit() is on the terminal, not lost. pino-pretty
 * is loaded only when a person reads the lines.
 */
export function prettyDestination(sink: DestinationStream, opts: { colorize: boolean }): DestinationStream {
  const { prettyFactory } = createRequire(import.meta.url)("pino-pretty") as PinoPretty;
  const prettify = prettyFactory({
    colorize: opts.colorize,
    // One line per entry: the message, then the entry's fields as compact JSON.
    singleLine: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "hostname",
  });
  return { write: (line: string) => void sink.write(prettify(line)) };
}

export function createLogger(opts: LogOptions = {}): Logger {
  const format = opts.format ?? (opts.destination ? "json" : logFormat(process.stderr, process.env));
  let destination = opts.destination ?? pino.destination({ fd: 2, sync: true });
  if (format === "pretty") {
    const noColor = (process.env["NO_COLOR"] ?? "") !== "";
    destination = prettyDestination(destination, { colorize: opts.destination === undefined && process.stderr.isTTY === true && !noColor });
  }
  return pino(
    {
      name: opts.name ?? "mesh-provisioner",
      level: opts.level ?? process.env["LOG_LEVEL"] ?? "info",
      // Secrets must never reach a log line, whatever a caller passes in.
      redact: {
        paths: ["pass", "password", "token", "nkey", "seed", "*.pass", "*.password", "*.token", "*.nkey", "*.seed"],
        censor: "[redacted]",
      },
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** A logger that keeps its lines in memory: for tests that assert on what was logged. */
export function memoryLogger(level = "debug"): { log: Logger; lines: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const destination: DestinationStream = { write: (s: string) => void lines.push(s) };
  const log = createLogger({ level, destination });
  return { log, lines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}
