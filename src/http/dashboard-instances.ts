/**
 * The instances page's view (runs in the browser; see dashboard-script.ts):
 * every instance answering `$SRV.STATS`, which one holds the seat, how far
 * each projection is behind its stream and the furthest instance, and how
 * it started. No event announces these: the page asks again every 2 s.
 */
export const DASHBOARD_INSTANCES = String.raw`
function behind(p, w) {
  if (!p) return cell("—", "muted");
  const lag = p.lag === null ? "lag unknown" : p.lag > 0 ? num(p.lag) + " behind its stream" : "";
  const far = p.behindFurthest > 0 ? num(p.behindFurthest) + " behind the furthest" : "";
  const stale = p.staleSince ? "stale: heard nothing since " + p.staleSince.replace("T", " ").slice(0, 19) + " UTC" : "";
  const bad = (p.lag || 0) > 0 || p.behindFurthest > 0 || !p.synced || Boolean(stale);
  const text = "@" + p.revision + (p.synced ? "" : " catching up") + (lag || far || stale ? " · " + [stale, lag, far].filter(Boolean).join(", ") : " · up to date");
  return cell(esc(text) + "<br><span class='muted'>" + esc(startedHow(p.start, w)) + "</span>", bad ? "bad" : "ok");
}

// How a projection started, said even when it is the usual (a first start reads the bucket whole: no checkpoint yet).
function startedHow(s, w) {
  if (!s) return w === "registry" ? "read whole at every start (it keeps no checkpoint)" : "started: not said";
  if (s.from === "checkpoint") return "started from checkpoint @" + s.revision;
  if (s.from === "pending") return "proving checkpoint @" + s.revision;
  return "started by a full read" + (s.reason === "missing" ? " (no checkpoint yet)" : ": " + s.reason);
}

async function showInstances() {
  const d = await get("api/instances");
  const whats = ["registry", "needs", "applied", "collect"];
  view.innerHTML = "<h2 id='page-title'>Instances</h2>" +
    "<p id='instances-summary'>" + num(d.instances.length) + " instance" + (d.instances.length === 1 ? "" : "s") + " answering, " +
    (d.holders === 1 ? "one holds the seat" : "<span class='bad'>" + d.holders + " hold the seat</span>") + " · asked again every 2 s</p>" +
    table("instances", ["instance", "seat", "requests", "errors"].concat(whats), d.instances.map((i) =>
      "<tr data-instance='" + esc(i.instance || i.id) + "'>" + cell(esc(i.instance || i.id) + (i.self ? " <span class='muted'>(this page's)</span>" : "")) +
      cell(i.isHolder ? "holds it" : "", i.isHolder ? "ok" : "") + cell(i.requests === null ? "" : num(i.requests), "n") + cell(i.errors === null ? "" : num(i.errors), "n" + (i.errors ? " bad" : "")) +
      whats.map((w) => behind(i.projections[w], w)).join("") + "</tr>"));
}
`;
