/**
 * The client's package as a node's author gets it: `npm pack` of client/
 * (built by `npm test`), installed into an empty project. It installs the
 * NATS client and nothing else, its types compile a typed use and refuse a
 * wrong one, and the example its README starts with runs against a real
 * service.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startStack, type Stack } from "../helpers/stack.js";
import { npmInstall, packAndInstall, run } from "../helpers/pack.js";

// dist/test/integration/ -> the repository
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** Every package in an installed project's node_modules (scoped ones as @scope/name). */
function installed(app: string): string[] {
  const dir = join(app, "node_modules");
  return readdirSync(dir)
    .filter((n) => !n.startsWith("."))
    .flatMap((n) => (n.startsWith("@") ? readdirSync(join(dir, n)).map((m) => `${n}/${m}`) : [n]))
    .sort();
}

/** The first ```ts block of the client's README. */
function readmeExample(): string {
  const text = readFileSync(join(ROOT, "client", "README.md"), "utf8");
  const m = /```ts\n([\s\S]*?)```/.exec(text);
  assert.ok(m, "the README starts with an example");
  return m[1] as string;
}

describe("npm pack of the client gives a package that installs on its own and works", { timeout: 300_000 }, () => {
  let work: string;
  let app: string;
  let files: string[];

  before(async () => {
    ({ work, app, files } = await packAndInstall(join(ROOT, "client"), "mesh-provisioner-client-pack-"));
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("the tarball holds the compiled client and its types, and no tests or sources", () => {
    for (const f of ["dist/src/index.js", "dist/src/index.d.ts", "dist/src/protocol/subjects.js", "README.md", "package.json"])
      assert.ok(files.includes(f), `${f} is in the package`);
    assert.deepEqual(
      files.filter((f) => f.includes("test/") || f.startsWith("src/")),
      [],
      "no tests or TypeScript sources",
    );
  });

  test("installing it installs the NATS client and its own dependencies, nothing of the service", () => {
    assert.deepEqual(installed(app), ["@nats-io/nats-core", "@nats-io/nkeys", "@nats-io/nuid", "mesh-provisioner-client", "tweetnacl"]);
  });

  test("TypeScript finds its types: a typed use compiles, a wrong one does not", async () => {
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", strict: true, noEmit: true, skipLibCheck: true, types: [] },
        files: ["use.ts"],
      }),
    );
    writeFileSync(
      join(app, "use.ts"),
      [
        'import { VerbError, type NeedsEntry, type View, type ProvisionerClient } from "mesh-provisioner-client";',
        "export async function needsOf(c: ProvisionerClient, node: string): Promise<string[]> {",
        '  const a = await c.get({ what: "needs", node });',
        "  const first: NeedsEntry | undefined = a.entries[0];",
        '  return a.entries.map((e) => `${e.node}/${e.module}/${e.kind}/${first?.name ?? ""}`);',
        "}",
        'export const size = (v: View<"needs">): number => v.entries.size;',
        "export const retry = (e: unknown): boolean => e instanceof VerbError && e.retryable;",
      ].join("\n"),
    );
    await run(process.execPath, [TSC, "-p", app]);
    writeFileSync(
      join(app, "use.ts"),
      'import { needsKey } from "mesh-provisioner-client";\nexport const k: number = needsKey("n1", "web", "config", "port");\n',
    );
    await assert.rejects(run(process.execPath, [TSC, "-p", app]), (err: { stdout?: string }) => /not assignable to type 'number'/.test(err.stdout ?? ""));
  });

  describe("against a running service", () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
      await npmInstall(app, "@nats-io/transport-node");
    });
    after(async () => {
      await stack?.stop();
    });

    test("the README's example runs: the registry's kinds, then a live view of the needs", async () => {
      // The example is TypeScript that is also plain JavaScript: it runs as it is written.
      writeFileSync(join(app, "example.mjs"), readmeExample());
      const { stdout } = await run(process.execPath, ["example.mjs"], { cwd: app, env: { ...process.env, NATS_URL: stack.server.url }, timeout: 30_000 });
      assert.match(stdout, /^config /m, "a registry entry per line");
      assert.equal(stdout.split("\n").filter((l) => /^\S+ /.test(l) && !/needs at revision/.test(l)).length, 13, stdout);
      assert.match(stdout, /^0 needs at revision \d+$/m);
    });
  });
});
