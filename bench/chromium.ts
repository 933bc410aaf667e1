/**
 * Debian's Chromium, headless, as the dashboard's browser tests and benches
 * launch it: one binary and one set of flags, so the bench measures the
 * browser the tests check.
 */
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env["CHROMIUM_BIN"] ?? "/usr/bin/chromium";

/** No sandbox (containers), no GPU, and nothing the browser would fetch on its own. */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface LaunchOptions {
  /** How long the launch may take. */
  readonly timeoutMs: number;
  /** true when the caller handles SIGINT/SIGTERM/SIGHUP itself (it closes the browser first); else the driver closes it on them. */
  readonly ownSignals?: boolean;
}

/** Launch Chromium headless; each launch gets a new empty profile of its own, removed on close(). */
export function launchChromium(options: LaunchOptions): Promise<Browser> {
  const driverSignals = options.ownSignals !== true;
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: options.timeoutMs,
    handleSIGINT: driverSignals,
    handleSIGTERM: driverSignals,
    handleSIGHUP: driverSignals,
    args: [...CHROMIUM_FLAGS],
  });
}
