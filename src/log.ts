/**
 * The logger: pino JSON lines. The destination is passed in so tests can
 * capture lines in memory and the command line can write to stderr.
 */
import { pino, type Logger, type DestinationStream } from "pino";

export type { Logger } from "pino";

export interface LogOptions {
  level?: string;
  name?: string;
  /** Where lines go; default stderr (fd 2), keeping stdout for command output. */
  destination?: DestinationStream;
}

export function createLogger(opts: LogOptions = {}): Logger {
  const destination = opts.destination ?? pino.destination({ fd: 2, sync: true });
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
