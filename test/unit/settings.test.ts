/**
 * The table of settings (src/defaults.ts) is what commander's options, the
 * configuration, README's configuration table and the systemd unit's
 * environment file follow: each is checked against it here.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { CONNECTION_SETTINGS, SERVE_SETTINGS, type Setting } from "../../src/defaults.js";
import { addConnectionOptions, addServeOptions } from "../../src/cli/options.js";
import { serveConfig } from "../../src/config.js";
import { SERVE_ROLE } from "../../src/permissions/inbox.js";

// dist/test/unit/ -> the repository
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const ALL: readonly Setting[] = [...CONNECTION_SETTINGS, ...SERVE_SETTINGS];

const serveCommand = (): Command => addServeOptions(addConnectionOptions(new Command("serve"), SERVE_ROLE));

describe("the table of settings", () => {
  test("each key is the name commander gives its flag's value", () => {
    const options = serveCommand().options;
    assert.deepEqual(
      options.map((o) => [o.long, o.attributeName()]),
      ALL.map((s) => [s.flag, s.key]),
    );
  });

  test("serve's twins are MESH_PROVISIONER_ and the flag upper-cased, dashes to underscores; the connection's the nats CLI's NATS_ names", () => {
    for (const s of SERVE_SETTINGS) assert.equal(s.env, `MESH_PROVISIONER_${s.flag.slice(2).toUpperCase().replace(/-/g, "_")}`, s.flag);
    for (const s of CONNECTION_SETTINGS) assert.match(s.env, /^NATS_[A-Z_]+$/, s.flag);
    assert.equal(new Set(ALL.map((s) => s.flag)).size, ALL.length, "no flag twice");
    assert.equal(new Set(ALL.flatMap((s) => [s.env, ...(s.fallbackEnv ? [s.fallbackEnv] : [])])).size, ALL.length + 1, "no variable twice");
  });

  test("no option has a commander default, which would hide its variable: a command line without flags gives no values", () => {
    const cmd = serveCommand().exitOverride();
    cmd.parse([], { from: "user" });
    // A `--no-` switch is the exception commander makes: its implied true, which the configuration reads as not given.
    const switches = ALL.filter((s) => s.value === "");
    assert.deepEqual(cmd.opts(), Object.fromEntries(switches.map((s) => [s.key, true])));
    assert.equal(serveConfig(cmd.opts(), { MESH_PROVISIONER_NO_SEAT: "true" }).noSeat, true, "the implied true leaves the variable to decide");
  });

  test("a switch takes no value: --no-seat given is false to commander, and the configuration's noSeat", () => {
    const cmd = serveCommand().exitOverride();
    cmd.parse(["--no-seat"], { from: "user" });
    assert.equal(cmd.opts().seat, false);
    assert.equal(serveConfig(cmd.opts(), {}).noSeat, true);
  });

  test("every value flag of a secret has a file flag, and its help says why to prefer it", () => {
    for (const [value, file] of [
      ["--password", "--password-file"],
      ["--token", "--token-file"],
      ["--http-token", "--http-token-file"],
    ]) {
      const v = ALL.find((s) => s.flag === value);
      const f = ALL.find((s) => s.flag === file);
      assert.ok(v && f, `${value} and ${file}`);
      assert.match(v.help, new RegExp(`visible to every user of this host: prefer ${file}$`));
      assert.equal(f.env, `${v.env}_FILE`);
    }
  });
});

describe("README's configuration table", () => {
  const readme = readFileSync(`${ROOT}README.md`, "utf8");
  const section = readme.slice(readme.indexOf("\n## Configuration\n"), readme.indexOf("\n## ", readme.indexOf("\n## Configuration\n") + 1));
  const rows = section
    .split("\n")
    .filter((l) => l.startsWith("| "))
    .map((l) => l.split("|").map((c) => c.trim()));

  test("lists every setting: its flag, its variable(s) and its default", () => {
    assert.ok(rows.length > ALL.length, "the table is found");
    for (const s of ALL) {
      const row = rows.find((r) => (r[1] ?? "").match(/--[a-z-]+/g)?.includes(s.flag));
      assert.ok(row, `a row for ${s.flag}`);
      const vars = s.fallbackEnv === undefined ? `\`${s.env}\`` : `\`${s.env}\`, then \`${s.fallbackEnv}\``;
      assert.equal(row[2], vars, `${s.flag}'s variable`);
      if (s.default !== undefined) assert.equal(row[3], `\`${s.default}\``, `${s.flag}'s default`);
    }
  });
});

describe("the systemd unit's environment file", () => {
  const text = readFileSync(`${ROOT}deploy/systemd/mesh-provisioner.env`, "utf8");
  const lines = text.split("\n");

  test("lists every variable, commented out at its default, under a comment naming its flag", () => {
    for (const s of ALL) {
      const at = lines.findIndex((l) => l.startsWith(`#${s.env}=`));
      assert.ok(at > 0, `${s.env} is listed`);
      if (s.default !== undefined) assert.equal(lines[at], `#${s.env}=${s.default}`, `${s.env} at its default`);
      assert.ok((lines[at - 1] ?? "").startsWith(`# ${s.flag}: `), `${s.env} under a comment naming ${s.flag}`);
    }
  });

  test("sets nothing as it is shipped: every line is a comment or blank", () => {
    assert.deepEqual(
      lines.filter((l) => l.trim() !== "" && !l.startsWith("#")),
      [],
    );
  });

  test("its defaults uncommented give the configuration of no settings at all", () => {
    const env: Record<string, string> = {};
    for (const s of ALL) {
      if (s.default === undefined) continue;
      const line = lines.find((l) => l.startsWith(`#${s.env}=`)) as string;
      env[s.env] = line.slice(s.env.length + 2);
    }
    assert.deepEqual(serveConfig({}, env), serveConfig({}, {}));
  });
});
