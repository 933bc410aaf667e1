/**
 * The alert rules (deploy/prometheus/mesh-provisioner-rules.yaml) checked by
 * the real promtool: `promtool check rules`, and `promtool test rules` with
 * the unit tests beside them (input series for each alert, firing and not).
 * Then what promtool does not check: every alert has a severity, a summary,
 * a description and a runbook link to its own section of docs/operations.md,
 * every alert is tested on both sides of its `for:`, and the tests fail when
 * the rules stop firing or fire for nothing. Without promtool the tests are
 * skipped, except in CI (CI=true), where a missing promtool fails them.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import { alertRules, prometheusToolForTests, promtool, RULES_FILE, RULES_TEST_FILE, withShortFor } from "../helpers/prometheus.js";

const OPERATIONS = fileURLToPath(new URL("../../../docs/operations.md", import.meta.url));
const SEVERITIES = ["page", "ticket", "info"];
const RUNBOOK = "docs/operations.md#";

const { bin, skip } = prometheusToolForTests("promtool");
const rulesText = readFileSync(RULES_FILE, "utf8");
const alerts = alertRules(rulesText);

/** GitHub's anchor of a heading, as scripts/check-doc-links.mjs spells it: lower case, punctuation dropped, spaces as dashes. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

/** The `###` headings under `## Alerts and runbook` of docs/operations.md, by anchor. */
function runbookSections(): Map<string, string> {
  const text = readFileSync(OPERATIONS, "utf8").replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "");
  const start = text.indexOf("\n## Alerts and runbook\n");
  assert.ok(start >= 0, "docs/operations.md has no section '## Alerts and runbook'");
  const end = text.indexOf("\n## ", start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  return new Map([...section.matchAll(/^### +(.+?) *$/gm)].map((m) => [slug(m[1]!), m[1]!]));
}

interface UnitTests {
  evaluation_interval?: string;
  tests: { name: string; alert_rule_test?: { eval_time: string; alertname: string; exp_alerts: unknown[] }[] }[];
}

/** Seconds of a promtool duration such as 1m, 2m45s or 90s. */
function seconds(d: string): number {
  let total = 0;
  for (const [, n, unit] of d.matchAll(/(\d+)(ms|s|m|h)/g)) total += Number(n) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as "ms" | "s" | "m" | "h"];
  return total;
}

/** Run `promtool test rules` on the shipped unit tests against `rules` (a rules file's text) in a temporary folder. */
function unitTestsAgainst(rules: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "mesh-provisioner-rules-"));
  try {
    writeFileSync(join(dir, basename(RULES_FILE)), rules);
    copyFileSync(RULES_TEST_FILE, join(dir, basename(RULES_TEST_FILE)));
    const r = promtool(bin, ["test", "rules", basename(RULES_TEST_FILE)], dir);
    return { status: r.status, output: r.stdout + r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The shipped rules with every alert's expression replaced by `expr`. */
function everyExpr(expr: string): string {
  const doc = parse(rulesText) as { groups: { rules: { alert?: string; expr: string }[] }[] };
  for (const g of doc.groups) for (const r of g.rules) if (r.alert !== undefined) r.expr = expr;
  return stringify(doc);
}

describe("the alert rules, checked by promtool", { skip }, () => {
  test("promtool check rules accepts the rules file", () => {
    const r = promtool(bin, ["check", "rules", RULES_FILE]);
    assert.equal(r.status, 0, `promtool check rules:\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, new RegExp(`SUCCESS: ${alerts.length} rules found`));
  });

  test("promtool test rules passes the unit tests", () => {
    const r = promtool(bin, ["test", "rules", basename(RULES_TEST_FILE)], dirname(RULES_TEST_FILE));
    assert.equal(r.status, 0, `promtool test rules:\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /SUCCESS/);
  });

  test("the unit tests fail for every alert whose expression never fires, and for every alert that always fires", () => {
    const never = unitTestsAgainst(everyExpr("vector(1) == 0"));
    assert.notEqual(never.status, 0, "rules that never fire passed the unit tests");
    const always = unitTestsAgainst(everyExpr("vector(1)"));
    assert.notEqual(always.status, 0, "rules that always fire passed the unit tests");
    for (const a of alerts) {
      assert.match(never.output, new RegExp(`alertname: ${a.alert},`), `no unit test of ${a.alert} failed when it never fires`);
      assert.match(always.output, new RegExp(`alertname: ${a.alert},`), `no unit test of ${a.alert} failed when it always fires`);
    }
  });
});

describe("the alert rules, as an operator reads them", () => {
  test("the rules file holds one group of alerts, each with a for:", () => {
    const doc = parse(rulesText) as { groups: { name: string }[] };
    assert.deepEqual(
      doc.groups.map((g) => g.name),
      ["mesh-provisioner"],
    );
    assert.ok(alerts.length >= 13, `only ${alerts.length} alerts`);
    for (const a of alerts) {
      assert.match(a.alert, /^MeshProvisioner[A-Z][A-Za-z]+$/, `alert name ${a.alert}`);
      assert.ok(a.for !== undefined && seconds(a.for) > 0, `${a.alert} has no for:`);
    }
  });

  test("every alert has a severity (page, ticket or info), a summary, a description and a runbook_url", () => {
    for (const a of alerts) {
      assert.ok(SEVERITIES.includes(a.labels?.["severity"] ?? ""), `${a.alert}: severity ${a.labels?.["severity"]}`);
      for (const key of ["summary", "description", "runbook_url"]) {
        assert.ok((a.annotations?.[key] ?? "").trim().length > 0, `${a.alert}: no ${key}`);
      }
    }
  });

  test("every runbook_url is docs/operations.md# and the anchor of the alert's own section under 'Alerts and runbook'", () => {
    const sections = runbookSections();
    for (const a of alerts) {
      const url = a.annotations?.["runbook_url"] ?? "";
      assert.ok(url.startsWith(RUNBOOK), `${a.alert}: runbook_url ${url} is not ${RUNBOOK}<anchor>`);
      const anchor = url.slice(RUNBOOK.length);
      assert.equal(sections.get(anchor), a.alert, `${a.alert}: docs/operations.md has no section '### ${a.alert}' (anchor #${anchor})`);
    }
    const alerted = new Set(alerts.map((a) => a.alert));
    for (const heading of sections.values()) assert.ok(alerted.has(heading), `docs/operations.md has a section ${heading} for no alert`);
  });

  test("every alert is unit tested firing, and not firing one evaluation before its for: has passed", () => {
    const unit = parse(readFileSync(RULES_TEST_FILE, "utf8")) as UnitTests;
    const step = seconds(unit.evaluation_interval ?? "1m");
    for (const a of alerts) {
      const cases = unit.tests.map((t) => (t.alert_rule_test ?? []).filter((c) => c.alertname === a.alert));
      const atBoundary = cases.some((cs) =>
        cs.some(
          (fires) => fires.exp_alerts.length > 0 && cs.some((c) => c.exp_alerts.length === 0 && seconds(c.eval_time) === seconds(fires.eval_time) - step),
        ),
      );
      assert.ok(atBoundary, `${a.alert}: no test group where it fires at some time and not one evaluation (${step} s) before`);
      const quiet = unit.tests.some((t) => {
        const cs = (t.alert_rule_test ?? []).filter((c) => c.alertname === a.alert);
        return cs.length > 0 && cs.every((c) => c.exp_alerts.length === 0);
      });
      assert.ok(quiet, `${a.alert}: no test group of input series where it must not fire at all`);
    }
  });

  test("the live test's copy of the rules changes every for: and nothing else", () => {
    const short = alertRules(withShortFor(rulesText, 2));
    assert.equal(short.length, alerts.length);
    short.forEach((s, i) => {
      const a = alerts[i]!;
      assert.equal(s.for, "2s");
      assert.deepEqual({ ...s, for: a.for }, a);
    });
  });
});
