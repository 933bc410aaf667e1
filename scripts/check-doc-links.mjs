/**
 * Checks the links of the repository's pages (README.md, CHANGELOG.md,
 * docs/*.md, client/README.md, go/README.md and every README.md under
 * deploy/): every relative link names a file or folder of the repository,
 * every #anchor (on the same page or another) a heading of the page it names
 * (as GitHub spells heading anchors), and no link leaves the repository.
 * Prints each broken link and exits 1 if there is any.
 *
 *   node scripts/check-doc-links.mjs [ROOT]     (ROOT: the repository, by default this script's)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(process.argv[2] ?? fileURLToPath(new URL("..", import.meta.url)));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The page's text outside fenced code blocks. */
function prose(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

function anchors(file) {
  const seen = new Map();
  const out = new Set();
  for (const m of prose(readFileSync(file, "utf8")).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every README.md under dir, at any depth. */
function readmes(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? readmes(join(dir, e.name)) : e.name === "README.md" ? [join(dir, e.name)] : [],
  );
}

const docs = join(root, "docs");
const pages = [
  ...["README.md", "CHANGELOG.md", "client/README.md", "go/README.md"].map((f) => join(root, f)).filter((f) => existsSync(f)),
  ...(existsSync(docs) ? readdirSync(docs).filter((f) => f.endsWith(".md")).map((f) => join(docs, f)) : []),
  ...readmes(join(root, "deploy")),
];
const broken = [];
for (const page of pages) {
  const text = prose(readFileSync(page, "utf8"));
  for (const m of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    const link = m[1];
    const where = `${relative(root, page)}: ${link}`;
    if (/^(https?:|mailto:)/.test(link)) continue;
    if (/(^|\/)shared(\/|$)|^\//.test(link)) {
      broken.push(`${where} (leaves the repository)`);
      continue;
    }
    const [path, anchor] = link.split("#", 2);
    const target = path === "" ? page : resolve(dirname(page), path);
    if (!target.startsWith(root) || !existsSync(target)) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (anchor !== undefined && !(statSync(target).isFile() && target.endsWith(".md") && anchors(target).has(anchor))) {
      broken.push(`${where} (no such heading)`);
    }
  }
}
for (const b of broken) process.stderr.write(`broken link: ${b}\n`);
if (broken.length > 0) process.exit(1);
process.stdout.write(`${pages.length} pages, every link resolves\n`);
