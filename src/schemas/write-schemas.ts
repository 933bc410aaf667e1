/** `npm run schemas`: write the protocol's JSON Schemas to schemas/ at the repository's root. */
import { mkdirSync, writeFileSync } from "node:fs";
import { jsonSchemaFiles } from "./json-schemas.js";

// Compiled to dist/src/protocol/: the repository's root is three folders up.
const dir = new URL("../../../schemas/", import.meta.url);
mkdirSync(dir, { recursive: true });
for (const [name, text] of Object.entries(jsonSchemaFiles())) {
  writeFileSync(new URL(name, dir), text);
  process.stdout.write(`schemas/${name}\n`);
}
