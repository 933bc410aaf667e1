import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
// dist/test/integration/ -> the repository
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/**
 * The package as a user gets it: `npm pack` (of what `npm test` just built),
 * then `npm install <tarball>` in an empty folder, which must give the
 * `mesh-provisioner` command and `mesh-provisioner/client` with its types.
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

  test("the tarball holds the compiled code, its types, the command and its bundle, the schemas and the docs, and no tests or bench", () => {
    for (const f of ["bin/mesh-provisioner", "dist/bundle/index.js", "dist/src/cli/index.js", "dist/src/client/index.js", "dist/src/client/index.d.ts", "schemas/request.schema.json", "docs/protocol.md", "README.md", "package.json"]) {
      assert.ok(files.includes(f), `${f} is in the package`);
    }
    assert.deepEqual(files.filter((f) => /(^|\/)(test|bench)\//.test(f) || f.startsWith("src/")), [], "no tests, bench or TypeScript sources");
  });

  test("the installed command runs", async () => {
    const { stdout } = await run(join(work, "app", "node_modules", ".bin", "mesh-provisioner"), ["--help"]);
    assert.match(stdout, /Usage: mesh-provisioner/);
    assert.match(stdout, /serve/);
  });

  test("mesh-provisioner/client imports, and its helpers work", async () => {
    const script = [
      'import { ProvisionerClient, VerbError, needsKey, collectKey, decodeCollection } from "mesh-provisioner/client";',
      'if (typeof ProvisionerClient !== "function" || typeof VerbError !== "function") throw new Error("missing exports");',
      'console.log(needsKey("n1", "web", "config", "port"), collectKey("n1", "ssh keys", "web"), decodeCollection("ssh=20keys"));',
    ].join("\n");
    writeFileSync(join(work, "app", "check.mjs"), script);
    const { stdout } = await run(process.execPath, ["check.mjs"], { cwd: join(work, "app") });
    assert.equal(stdout.trim(), "n1.web.config.port n1.ssh=20keys.web ssh keys");
  });

  test("TypeScript finds the client's types: a typed use compiles, a wrong one does not", async () => {
    const app = join(work, "app");
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ["use.ts"] }),
    );
    writeFileSync(
      join(app, "use.ts"),
      [
        'import type { NeedsEntry, View, ProvisionerClient } from "mesh-provisioner/client";',
        "export async function needsOf(c: ProvisionerClient, node: string): Promise<string[]> {",
        '  const a = await c.get({ what: "needs", node });',
        "  const first: NeedsEntry | undefined = a.entries[0];",
        "  return a.entries.map((e) => `${e.node}/${e.module}/${e.kind}/${first?.name ?? \"\"}`);",
        "}",
        'export const size = (v: View<"needs">): number => v.entries.size;',
      ].join("\n"),
    );
    await run(process.execPath, [TSC, "-p", app]);
    writeFileSync(join(app, "use.ts"), 'import { needsKey } from "mesh-provisioner/client";\nexport const k: number = needsKey("n1", "web", "config", "port");\n');
    await assert.rejects(run(process.execPath, [TSC, "-p", app]), (err: { stdout?: string }) => /not assignable to type 'number'/.test(err.stdout ?? ""));
    assert.ok(existsSync(join(app, "node_modules", "mesh-provisioner", "dist", "src", "client", "index.d.ts")));
  });
});
