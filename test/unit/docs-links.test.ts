/** The links of the repository's pages resolve, anchors included (scripts/check-doc-links.mjs). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// dist/test/unit/ -> the repository
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SCRIPT = join(ROOT, "scripts/check-doc-links.mjs");

function check(root?: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, root === undefined ? [SCRIPT] : [SCRIPT, root], { cwd: ROOT, encoding: "utf8" });
}

/** A repository of the given pages in a temporary folder. */
function fixture(pages: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "doc-links-"));
  for (const [path, text] of Object.entries(pages)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const GOOD = {
  "README.md": "# Top\n\nSee [the guide](docs/guide.md#set-it-up), [below](#more-to-read) and [the client](client/README.md#install).\n\n## More to read\n",
  "docs/guide.md": "# Guide\n\n## Set it up\n\nBack to [the top](../README.md#top); [the chart](../deploy/helm/chart/README.md#values).\n",
  "client/README.md": "# Client\n\n## Install\n",
  "deploy/helm/chart/README.md": "# Chart\n\n## Values\n\n[changes](../../../CHANGELOG.md#010)\n",
  "CHANGELOG.md": "# Changelog\n\n## 0.1.0\n",
};

test("every link of README.md, CHANGELOG.md, docs/, client/, go/ and deploy/ READMEs names a file of the repository and a heading that exists", () => {
  const r = check();
  assert.equal(r.status, 0, r.stderr);
});

test("the link check passes a repository whose links and anchors all resolve", () => {
  const root = fixture(GOOD);
  try {
    const r = check(root);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^5 pages, every link resolves/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

for (const [what, page, text, reported] of [
  ["an anchor on the same page", "README.md", "# Top\n\n[below](#no-such-part)\n", "README.md: #no-such-part (no such heading)"],
  ["an anchor on another page", "docs/guide.md", "# Guide\n\n[top](../README.md#nowhere)\n", "docs/guide.md: ../README.md#nowhere (no such heading)"],
  [
    "an anchor in a deploy README",
    "deploy/helm/chart/README.md",
    "# Chart\n\n[guide](../../../docs/guide.md#gone)\n",
    "deploy/helm/chart/README.md: ../../../docs/guide.md#gone (no such heading)",
  ],
  ["a missing file from CHANGELOG.md", "CHANGELOG.md", "# Changelog\n\n[gone](docs/gone.md)\n", "CHANGELOG.md: docs/gone.md (no such file)"],
] as const) {
  test(`the link check fails on ${what}, naming the page and the link`, () => {
    const root = fixture({ ...GOOD, [page]: text });
    try {
      const r = check(root);
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stderr, new RegExp(`broken link: ${reported.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}
