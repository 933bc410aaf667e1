import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../../../", import.meta.url).pathname;

/** Every installed copy of a package, wherever npm nested it. */
function copiesOf(scope: string, name: string, dir = join(root, "node_modules"), found: string[] = []): string[] {
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (entry.startsWith("@")) {
      for (const sub of readdirSync(path)) {
        const pkg = join(path, sub);
        if (entry === scope && sub === name) found.push(pkg);
        copiesOf(scope, name, join(pkg, "node_modules"), found);
      }
    } else {
      copiesOf(scope, name, join(path, "node_modules"), found);
    }
  }
  return found;
}

test("exactly one @nats-io/nats-core is installed, shared by every NATS package", () => {
  const copies = copiesOf("@nats-io", "nats-core");
  assert.equal(copies.length, 1, `found ${copies.join(", ")}`);
});

test("the override of @nats-io/nats-core follows the project's own declared dependency, not a version of its own", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { overrides?: Record<string, string> };
  assert.equal(pkg.overrides?.["@nats-io/nats-core"], "$@nats-io/nats-core");
});
