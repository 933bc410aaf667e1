/** Printing an answer as a plain text table for people (pure). */
import type { Answer, Staleness } from "mesh-provisioner-client";

const COLUMNS: Record<string, string[]> = {
  registry: ["kind", "module", "bucket", "key", "verb", "collection", "revision"],
  needs: ["node", "module", "kind", "name", "value", "answered", "revision"],
  applied: ["node", "module", "value", "revision"],
  collect: ["node", "collection", "contributor", "value", "revision"],
};

const MAX_CELL = 60;

function cell(v: unknown): string {
  if (v === undefined || v === null) return "";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > MAX_CELL ? `${s.slice(0, MAX_CELL - 1)}…` : s;
}

export function renderTable(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** What a stale answer's reader must know: it is the bucket as of a revision, and how long its instance has not heard. */
export function staleLine(stale: Staleness): string {
  const seconds = Math.round(stale.silentMs / 1000);
  return (
    `may be stale: the answering instance had heard nothing from the bucket's stream for ${seconds} s (since ${stale.since}); ` +
    `this is the bucket at revision ${stale.revision}`
  );
}

export function formatAnswer(a: Answer): string {
  const cols = COLUMNS[a.what] ?? ["key", "value", "revision"];
  const rows = [cols.map((c) => c.toUpperCase())];
  for (const e of a.entries) {
    rows.push(cols.map((c) => (c === "answered" ? (e["answered"] === false ? "no" : "yes") : cell(e[c]))));
  }
  let out = `${a.what} at revision ${a.revision}: ${a.entries.length} entr${a.entries.length === 1 ? "y" : "ies"}\n`;
  if (a.stale !== undefined) out += `${staleLine(a.stale)}\n`;
  out += `${renderTable(rows)}\n`;
  if (a.outOfShape.length > 0) {
    out += `\n${a.outOfShape.length} key${a.outOfShape.length === 1 ? "" : "s"} out of shape:\n`;
    out += renderTable([["KEY", "REASON"], ...a.outOfShape.map((o) => [o.key, o.reason])]) + "\n";
  }
  return out;
}
