/**
 * Small files with one job: no source file of the service (`src/`) or of the
 * client package (`client/src/`) is over 400 lines. A file that grows past
 * it fails here with its name and length; split it by concept, not by line
 * count.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const MAX_LINES = 400;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

/** Lines as `wc -l` counts them: a last line without its newline still counts. */
function lineCount(text: string): number {
  const newlines = text.split("\n").length - 1;
  return text.length === 0 || text.endsWith("\n") ? newlines : newlines + 1;
}

test(`no source file under src/ or client/src/ is over ${MAX_LINES} lines`, () => {
  const files = [...sources(join(root, "src")), ...sources(join(root, "client", "src"))];
  assert.ok(files.length > 100, `the sources are read (${files.length})`);
  const over = files
    .map((file) => ({ file: relative(root, file), lines: lineCount(readFileSync(file, "utf8")) }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
  assert.deepEqual(over, [], `split these by concept:\n${over.join("\n")}`);
});
