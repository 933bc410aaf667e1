/**
 * The project uses its libraries through their public, documented API only:
 * a library upgrade, a change in its timing or a Node release must never
 * break the service silently. Each rule below names a way of reaching past
 * that API; any file of the project's own code that does so fails here, with
 * the file, the line and the rule.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const THIS_FILE = "test/unit/public-api.test.ts";

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
}

export const RULES: readonly Rule[] = [
  { name: "an import of a package's internal entry", pattern: /from\s+["'](?!\.)(?:@[\w-]+\/)?[\w.-]+\/(?:internal|lib|src|dist)\b[^"']*["']/ },
  {
    name: "a prototype replaced or patched",
    pattern: /\.prototype\s*(?:\.\s*\w+\s*)?=(?!=)|defineProperty\(\s*[\w.]+\.prototype|Object\.assign\(\s*[\w.]+\.prototype/,
  },
  { name: "a prototype's methods taken to call on other objects", pattern: /(?<![=!<>])=\s*[\w.]+\.prototype\b/ },
  { name: "a private field read or written (`_`-prefixed)", pattern: /[\w)\]]\??\._[a-z]\w*/ },
  { name: "an undocumented Node Buffer method", pattern: /\b(?:utf8|latin1|ascii|ucs2|hex|base64|base64url)(?:Write|Slice)\b/ },
  { name: "a hidden option of the NATS client", pattern: /\bpendingLimit\b/ },
  { name: "a connection's internals reached through a cast", pattern: /\bas\s+\{\s*(?:protocol|options|outbound|parser|subscriptions)\??\s*:/ },
  { name: "a method the declared type does not have, reached through a cast", pattern: /\bas\s+\{\s*(?:stop|close|destroy)\??\s*:/ },
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    if (d.name === "node_modules" || d.name.startsWith(".")) return [];
    const path = join(dir, d.name);
    return d.isDirectory() ? sources(path) : /\.(?:ts|mts|mjs|js)$/.test(d.name) ? [path] : [];
  });
}

/** Every breach of a rule in `text`: one line each, `line: rule`. Comments are not code. */
export function breaches(text: string): string[] {
  const found: string[] = [];
  const lines = text.split("\n");
  for (const [i, line] of lines.entries()) {
    const code = line.replace(/^\s*(?:\*|\/\/|\/\*\*?).*$/, "").replace(/\s\/\/.*$/, "");
    for (const rule of RULES) if (rule.pattern.test(code)) found.push(`${i + 1}: ${rule.name}: ${line.trim()}`);
  }
  return found;
}

test("each rule catches the way past the public API it names, and leaves ordinary code alone", () => {
  const caught = [
    `import { Parser } from "@nats-io/nats-core/internal";`,
    `import { x } from "rxjs/dist/esm/internal/operators/map.js";`,
    `Parser.prototype.parse = fastParse;`,
    `Object.defineProperty(Parser.prototype, "parse", {});`,
    `const { latin1Slice } = Buffer.prototype as unknown as Codecs;`,
    `const raw = (m as unknown as ParsedMsg)._msg;`,
    `buf.utf8Write(s, at);`,
    `...({ pendingLimit: 1 } as Partial<ConnectionOptions>),`,
    `const p = (nc as { options?: { inboxPrefix?: string } }).options;`,
    `(status as { stop?: () => void }).stop?.();`,
  ];
  for (const line of caught) assert.ok(breaches(line).length >= 1, line);
  const fine = [
    `import { connect } from "@nats-io/transport-node";`,
    `const ack = "$JS.ACK._..KV_needs.c_1.3.7.4.1.12";`,
    `buf.write(key, at, "latin1");`,
    `// Parser.prototype.parse = x; is what this file must never do`,
    `if (a === b.prototype) return;`,
  ];
  for (const line of fine) assert.deepEqual(breaches(line), [], line);
});

test("the project's own code reaches no library past its public API", () => {
  const found: string[] = [];
  for (const dir of ["src", "test", "bench", "chaos", "scripts", "bin", "client/src", "client/test"]) {
    let files: string[];
    try {
      files = sources(join(root, dir));
    } catch {
      continue;
    }
    for (const file of files) {
      const rel = relative(root, file);
      if (rel === THIS_FILE) continue;
      for (const b of breaches(readFileSync(file, "utf8"))) found.push(`${rel}:${b}`);
    }
  }
  assert.deepEqual(found, [], `past the public API:\n${found.join("\n")}`);
});
