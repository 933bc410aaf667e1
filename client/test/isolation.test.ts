/**
 * `mesh-provisioner-client` loads nothing but its own files and the NATS
 * client: a process that imports it (by its name, through its exports map)
 * loads only files of its dist/src/ and of @nats-io/nats-core. A resolve hook
 * records every module the ES loader resolves, and the CommonJS cache names
 * every file required beneath them, so an import added anywhere down the
 * graph (a static one, or one made while the module loads) is seen here.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// client/dist/test/ -> the package's root
const root = fileURLToPath(new URL("../../", import.meta.url));
const src = join(root, "dist", "src") + sep;

/** The packages the client may load: the NATS client alone. */
const ALLOWED_PACKAGES = ["@nats-io/nats-core"];

/** The package a path in node_modules belongs to, or undefined outside node_modules. */
function packageOf(path: string): string | undefined {
  const at = path.lastIndexOf(`node_modules${sep}`);
  if (at < 0) return undefined;
  const parts = path.slice(at + `node_modules${sep}`.length).split(sep);
  return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** Every file a fresh node process loads when it imports `mesh-provisioner-client`. */
function filesLoadedByTheClient(): string[] {
  const dir = mkdtempSync(join(tmpdir(), "client-isolation-"));
  try {
    const log = join(dir, "loaded.txt");
    writeFileSync(
      join(dir, "hooks.mjs"),
      `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, r.url + "\\n");
  return r;
}
`,
    );
    writeFileSync(
      join(dir, "register.mjs"),
      `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
    );
    const script = `
import { createRequire } from "node:module";
import { appendFileSync } from "node:fs";
const client = await import("mesh-provisioner-client");
if (typeof client.ProvisionerClient !== "function") throw new Error("no ProvisionerClient exported");
const cjs = Object.keys(createRequire(import.meta.url).cache);
appendFileSync(${JSON.stringify(log)}, cjs.map((p) => "cjs:" + p).join("\\n") + "\\n");
`;
    const r = spawnSync(process.execPath, ["--import", pathToFileURL(join(dir, "register.mjs")).href, "--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
    });
    assert.equal(r.status, 0, `the importing process failed: ${r.stderr}`);
    return readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l) => (l.startsWith("cjs:") ? l.slice(4) : l.startsWith("file:") ? fileURLToPath(l) : l))
      .filter((p) => !p.startsWith("node:"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("importing mesh-provisioner-client loads its own files and @nats-io/nats-core, nothing else", () => {
  const files = [...new Set(filesLoadedByTheClient())];
  const ours = files.filter((f) => f.startsWith(src)).map((f) => f.slice(src.length));
  assert.ok(ours.includes("index.js"), `the hook saw the client's entry (saw ${ours.join(", ")})`);
  const packages = [...new Set(files.map(packageOf).filter((p): p is string => p !== undefined))];
  assert.deepEqual(
    packages.filter((p) => !ALLOWED_PACKAGES.includes(p)),
    [],
    "packages other than @nats-io/nats-core",
  );
  const elsewhere = files.filter((f) => !f.startsWith(src) && packageOf(f) === undefined);
  assert.deepEqual(elsewhere, [], "files loaded from outside the package's dist/src and node_modules");
});
