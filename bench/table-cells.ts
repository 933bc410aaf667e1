/**
 * How a figure reads in a table of docs/benchmarks.md: one cell is
 * "service / baseline unit, ratio", bold where the row's target is met,
 * ", no" where it is not, "—" where the run did not measure it. Pure: the
 * same row always gives the same text, so a page regenerated from the same
 * results is byte for byte the same.
 */

/** A row as a table shows it: a bench row's figures, or a cell written out (`text`) for what is not a ratio. */
export interface CellRow {
  unit?: string;
  service?: number | null;
  baseline?: number | null;
  ratio?: number | null;
  ok?: boolean | null;
  text?: string;
}

const grouped = (v: number, digits: number): string => v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

const missing = (v: number | null | undefined): v is null | undefined => v === undefined || v === null || Number.isNaN(v);

/** A number without its unit: whole figures as they are, grouped by thousands; fewer decimals the larger it is. */
export function number(v: number, unit = ""): string {
  if (unit === "req/s") return `${(v / 1000).toFixed(2)}k/s`;
  if (unit === "MiB" || unit === "MB") return v >= 100 ? grouped(v, 0) : grouped(v, 1);
  if (Number.isInteger(v) || Math.abs(v) >= 100) return grouped(v, 0);
  return grouped(v, Math.abs(v) >= 10 ? 1 : 2);
}

export function ratioText(r: number): string {
  return `${r >= 100 ? grouped(r, 0) : r.toFixed(2)}x`;
}

/** One cell: "—" without a figure. */
export function cell(r: CellRow | undefined): string {
  if (r === undefined) return "—";
  let text: string;
  if (r.text !== undefined) text = r.text;
  else if (missing(r.service) && (missing(r.baseline) || r.ok !== false)) return "—";
  else if (missing(r.service)) text = `— / ${number(r.baseline!, r.unit)}${r.unit && r.unit !== "req/s" ? ` ${r.unit}` : ""}`;
  else {
    const unit = r.unit ?? "";
    const after = unit && unit !== "req/s" ? ` ${unit}` : "";
    text = missing(r.baseline) ? `${number(r.service, unit)}${after}` : `${number(r.service, unit)} / ${number(r.baseline, unit)}${after}`;
    if (!missing(r.ratio) && !missing(r.baseline)) text += `, ${ratioText(r.ratio)}`;
  }
  return r.ok === true ? `**${text}**` : r.ok === false ? `${text}, no` : text;
}
