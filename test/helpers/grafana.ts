/** The Grafana dashboard (deploy/grafana/mesh-provisioner.json) as tests read it: its panels, its expressions and the metrics they name. */
import { readFileSync } from "node:fs";
import { ROOT } from "./processes.js";

export const DASHBOARD_FILE = `${ROOT}deploy/grafana/mesh-provisioner.json`;

export interface DataSourceRef {
  readonly type?: string;
  readonly uid?: string;
}

export interface Target {
  readonly expr?: string;
  readonly refId?: string;
  readonly datasource?: DataSourceRef;
}

export interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: DataSourceRef;
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly targets?: readonly Target[];
  readonly panels?: readonly Panel[];
}

export interface Variable {
  readonly name: string;
  readonly type: string;
  readonly query?: string | { readonly query?: string };
  readonly datasource?: DataSourceRef;
}

export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly tags: readonly string[];
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly Variable[] };
}

export function loadDashboard(file = DASHBOARD_FILE): Dashboard {
  return JSON.parse(readFileSync(file, "utf8")) as Dashboard;
}

/** Every panel, those inside collapsed rows too. */
export function allPanels(d: Dashboard): Panel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

/** Every PromQL expression: the panels' targets and the query variables' queries. */
export function expressions(d: Dashboard): { readonly where: string; readonly expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  for (const p of allPanels(d)) for (const t of p.targets ?? []) out.push({ where: `panel "${p.title}" ${t.refId ?? ""}`, expr: t.expr ?? "" });
  for (const v of d.templating.list) {
    if (v.type !== "query") continue;
    const q = typeof v.query === "string" ? v.query : (v.query?.query ?? "");
    // label_values(metric{…}, label): the metric is the expression; the label is not a metric.
    const lv = /^label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)$/.exec(q);
    out.push({ where: `variable $${v.name}`, expr: lv ? lv[1]! : q });
  }
  return out;
}

const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset", "inf", "nan", "atan2"]);

/**
 * The metric names a PromQL expression selects. What is not a metric name
 * is taken out first: strings, label matchers `{…}`, ranges `[…]`, label
 * lists after by/without/on/ignoring/group_left/group_right, Grafana's
 * variables; then every identifier left that is not a function or an
 * aggregation (followed by `(`), a keyword or part of a number names a metric.
 */
export function metricNamesIn(expr: string): string[] {
  const e = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, " ")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ")
    .replace(/\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*/g, " ");
  const names = new Set<string>();
  for (const m of e.matchAll(/[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?[a-zA-Z]*|[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const token = m[0];
    if (/^[0-9]/.test(token) || KEYWORDS.has(token.toLowerCase())) continue;
    if (/^\s*\(/.test(e.slice(m.index + token.length))) continue;
    names.add(token);
  }
  return [...names];
}

/**
 * Whether `name` is one of the families `types` lists (a `/metrics` page's
 * `# TYPE` lines), a histogram's `_bucket`, `_sum` or `_count` series
 * counting as its histogram's.
 */
export function isExported(name: string, types: ReadonlyMap<string, string>): boolean {
  if (types.has(name)) return true;
  const base = /^(.*)_(?:bucket|sum|count)$/.exec(name)?.[1];
  return base !== undefined && (types.get(base) === "histogram" || types.get(base) === "summary");
}
