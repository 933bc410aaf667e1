/** Debian's Chromium for the dashboard's browser tests: where it is, whether it is there, how it is launched, where screenshots go. */
import { accessSync, constants as fsc } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { CHROMIUM, launchChromium } from "../../bench/chromium.js";

/**
 * Where a screenshot named `name` goes: docs/<name>.png with
 * UPDATE_SCREENSHOT=1 (the committed pictures are refreshed only on request),
 * else a file in the temporary directory, so a plain test run leaves the tree clean.
 */
export const screenshot = (name: string): string =>
  process.env["UPDATE_SCREENSHOT"] === "1"
    ? // dist/test/helpers/ -> the repository's docs/
      fileURLToPath(new URL(`../../../docs/${name}.png`, import.meta.url))
    : join(tmpdir(), `mesh-provisioner-${name}-${process.pid}.png`);

/** Why the browser tests cannot run here (a reason to skip them), or false. */
export function missingChromium(): string | false {
  try {
    accessSync(CHROMIUM, fsc.X_OK);
    return false;
  } catch {
    return `Debian's Chromium is not installed at ${CHROMIUM} (sudo apt-get install chromium): the dashboard is not checked in a browser`;
  }
}

/** Launch Chromium headless, with the flags and binary the benches use. */
export function launch(): Promise<Browser> {
  return launchChromium({ timeoutMs: 15_000 });
}
