import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { BIN, ROOT } from "../helpers/processes.js";

/**
 * The bundle the command runs (`npm run build`, scripts/bundle.mjs). Its
 * point is the service's start: rxjs's CommonJS build, which Node's own
 * resolution picks, is ~250 files and every operator whether used or not.
 */
const BUNDLE = `${ROOT}dist/bundle/`;

test("the bundle takes rxjs's ES-module build, keeping only the operators the code uses", () => {
  const text = readdirSync(BUNDLE)
    .filter((f) => f.endsWith(".js"))
    .map((f) => readFileSync(BUNDLE + f, "utf8"))
    .join("\n");
  // esbuild names each module it takes in a comment: `// node_modules/rxjs/dist/esm/internal/operators/map.js`.
  assert.doesNotMatch(text, /node_modules\/rxjs\/dist\/cjs\//, "no module of rxjs's CommonJS build");
  const used = new Set(text.match(/node_modules\/rxjs\/dist\/esm\/internal\/operators\/\w+\.js/g) ?? []);
  const all = readdirSync(`${ROOT}node_modules/rxjs/dist/esm/internal/operators`).filter((f) => f.endsWith(".js"));
  assert.ok(used.size > 0, "rxjs's operators come from its ES-module build");
  assert.ok(used.size < all.length / 4, `${used.size} of rxjs's ${all.length} operators are in the bundle`);
});

test("the command's entry is the bundle", () => {
  assert.match(readFileSync(BIN, "utf8"), /import\("\.\.\/dist\/bundle\/index\.js"\)/);
});
