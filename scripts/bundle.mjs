/**
 * Bundles the command line (dist/src/cli/index.js, compiled by tsc) into
 * dist/bundle/, which bin/mesh-provisioner runs.
 *
 * Why: a process that loads ~500 files (rxjs's CommonJS build alone is ~250,
 * every operator whether used or not) spends ~150 ms before its own first
 * line; one bundle per command, rxjs taken from its ES-module build so that
 * only the operators used are kept, loads in a fraction of that (measured in
 * docs/benchmarks.md, "Start cost"). Each command stays a chunk of its own
 * (`serve` does not load the query, dump or verify code).
 *
 * Left outside the bundle, loaded from node_modules only when needed:
 * pino-pretty (a person at a terminal) and zod (the first malformed request);
 * both are loaded with createRequire at the point of use.
 */
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${root}dist/bundle`;

/** rxjs's exports map sends the "node" condition to its CommonJS build, which cannot be tree-shaken. */
const rxjsEsm = {
  name: "rxjs-esm",
  setup(b) {
    b.onResolve({ filter: /^rxjs$/ }, () => ({ path: `${root}node_modules/rxjs/dist/esm/index.js` }));
  },
};

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [`${root}dist/src/cli/index.js`],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["pino-pretty", "zod"],
  plugins: [rxjsEsm],
  // The CommonJS packages inside (commander, pino) call require() for Node's own modules.
  banner: { js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);' },
  // Not minified: a stack trace names the functions and lines of readable code (the maps lead back to src/).
  sourcemap: "linked",
  logLevel: "warning",
});
