/**
 * An outside tool a test file needs (helm, promtool, prometheus): found, or
 * why not. Where it is missing the file's tests are skipped, saying why,
 * except under CI (CI=true), where a failing test of its own says how to
 * install it: .ci/run installs every one of them.
 */
import assert from "node:assert/strict";
import { accessSync, constants as fsc } from "node:fs";
import { test } from "node:test";

export type Found = { bin: string } | { missing: string };

export function executable(path: string): boolean {
  try {
    accessSync(path, fsc.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `found`'s path, or the skip reason; `needs` says what must run (the failing test's name under CI). */
export function toolForTests(found: Found, name: string, needs: string): { bin: string; skip: string | false } {
  if ("bin" in found) return { bin: found.bin, skip: false };
  if (process.env["CI"] === "true") {
    test(`${name} is installed (CI=true: ${needs})`, () => assert.fail(`${found.missing}; .ci/run installs it`));
    return { bin: "", skip: `${name} is missing: see the failing test '${name} is installed'` };
  }
  return { bin: "", skip: `${found.missing}; skipped here, and a failure in CI (CI=true)` };
}
