import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { packAndInstall, run } from "../helpers/pack.js";
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
  let files: string[];

  before(async () => {
    ({ work, files } = await packAndInstall(ROOT, "mesh-provisioner-pack-"));
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
