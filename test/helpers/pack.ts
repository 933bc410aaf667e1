/**
 * A package as a user gets it: `npm pack` of a folder of the repository into
 * a fresh temporary folder, then `npm install <tarball>` in an empty project
 * beside it. Dependencies come from npm's cache when it has them (CI has just
 * run npm ci).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

export const run = promisify(execFile);

export interface Installed {
  /** The temporary folder (remove it when done). */
  readonly work: string;
  /** The empty project the tarball was installed into. */
  readonly app: string;
  /** The paths the tarball holds. */
  readonly files: string[];
}

/** `npm install` of `specs` (a tarball, a package name) in `app`. */
export async function npmInstall(app: string, ...specs: string[]): Promise<void> {
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", ...specs], { cwd: app, maxBuffer: 16 << 20 });
}

/** Pack the package in `dir` and install it into an empty project. */
export async function packAndInstall(dir: string, prefix: string): Promise<Installed> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: dir, maxBuffer: 16 << 20 });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  assert.ok(packed, "npm pack reported what it packed");
  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true, type: "module" }));
  await npmInstall(app, join(work, packed.filename));
  return { work, app, files: packed.files.map((f) => f.path) };
}
