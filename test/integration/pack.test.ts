import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
// dist/test/integration/ -> the repository
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The service's package as a user gets it: `npm pack` (of what `npm test`
 * just built), then `npm install <tarball>` in an empty folder, which must
 * give the `mesh-provisioner` command. The client is a package of its own
 * (client-pack.test.ts).
 */
describe("npm pack gives a package that installs and works in an empty folder", { timeout: 300_000 }, () => {
  let work: string;
  let tarball: string;
  let files: string[];

  before(async () => {
    work = mkdtempSync(join(tmpdir(), "mesh-provisioner-pack-"));
    const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: ROOT, maxBuffer: 16 << 20 });
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    assert.ok(packed, "npm pack reported what it packed");
    tarball = join(work, packed.filename);
    files = packed.files.map((f) => f.path);
    const app = join(work, "app");
    await run("mkdir", ["-p", app]);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true, type: "module" }));
    // The dependencies come from npm's cache when it has them (CI just ran npm ci).
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball], { cwd: app, maxBuffer: 16 << 20 });
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the tarball holds the command and its bundle, the schemas and the docs, and no tests, bench, sources or client", () => {
    for (const f of ["bin/mesh-provisioner", "dist/bundle/index.js", "schemas/request.schema.json", "docs/protocol.md", "README.md", "package.json"]) {
      assert.ok(files.includes(f), `${f} is in the package`);
    }
    assert.deepEqual(
      files.filter((f) => /(^|\/)(test|bench)\//.test(f) || f.startsWith("src/") || f.startsWith("dist/src/") || f.startsWith("client/")),
      [],
      "no tests, bench, sources or the client's package",
    );
  });

  test("the installed command runs", async () => {
    const { stdout } = await run(join(work, "app", "node_modules", ".bin", "mesh-provisioner"), ["--help"]);
    assert.match(stdout, /Usage: mesh-provisioner/);
    assert.match(stdout, /serve/);
  });
});
