/**
 * Checks the links of README.md and docs/*.md: every relative link names a
 * file or folder of the repository, every #anchor a heading of its page (as
 * GitHub spells heading anchors), and no link leaves the repository.
 * Prints each broken link and exits 1 if there is any.
 *
 *   node scripts/check-doc-links.mjs
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));

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

const pages = [join(root, "README.md"), ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => join(root, "docs", f))];
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
