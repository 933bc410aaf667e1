/** The links of README.md and docs/ resolve (scripts/check-doc-links.mjs). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

// dist/test/unit/ -> the repository
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

test("every link of README.md and docs/*.md names a file of the repository and a heading that exists", () => {
  const r = spawnSync(process.execPath, ["scripts/check-doc-links.mjs"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
});
