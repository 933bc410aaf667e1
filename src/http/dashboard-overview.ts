/**
 * The overview page's view (runs in the browser; see dashboard-script.ts):
 * the mesh's totals as cards, each a way into the page that lists what it
 * counts, the change rate's chart, and one page of the node list.
 */
export const DASHBOARD_OVERVIEW = String.raw`
function cards(o) {
  const t = o.totals;
  const oos = t.outOfShape.needs + t.outOfShape.applied + t.outOfShape.collect + o.buckets.registry.outOfShape;
  const card = (name, value, label, bad, to) => (to ? "<a class='card" + (bad ? " bad" : "") + "' href='" + to + "'" : "<div class='card" + (bad ? " bad" : "") + "'") +
    " data-total='" + name + "'><b>" + num(value) + "</b>" + label + (to ? "</a>" : "</div>");
  return "<div id='totals'><div class='cards'>" +
    card("nodes", t.nodes, "nodes") +
    card("nodesWithProblems", t.nodesWithProblems, "nodes with something wrong", t.nodesWithProblems > 0, "?problems=1") +
    card("modules", t.modules, "modules") +
    card("needs", t.needs, "needs", false, href({ page: "registry" })) +
    card("unanswered", t.unanswered, "needs no domain answers", t.unanswered > 0, href({ page: "unanswered" })) +
    card("notApplied", t.notApplied, "modules not applied", t.notApplied > 0, "?problems=1") +
    card("collect", t.collect, "collect items", false, href({ page: "collections" })) +
    card("registry", o.buckets.registry.entries, "kinds in the registry", false, href({ page: "registry" })) +
    card("outOfShape", oos, "keys out of shape", oos > 0, href({ page: "out-of-shape" })) +
    card("nodesFlooding", t.nodesFlooding, "nodes flooding their keys", t.nodesFlooding > 0) +
    "</div>" +
    (t.flooding.length ? "<p class='note' id='flooding'>flooding (revoke the node's grant, or raise --flood-keys / --flood-bytes): " +
      t.flooding.map((f) => nodeLink(f.node) + " " + num(f.keys) + " keys, " + (f.bytes / 1048576).toFixed(1) + " MiB").join(" · ") + "</p>" : "") +
    "</div>";
}

// The overview: totals, the change rate, then one page of the node list, as the server pages and filters it.
let overview = null;
async function showOverview() {
  const [page, rate] = await Promise.all([get("api/nodes?" + listQuery(list.problems ? { problems: "1" } : null)), get("api/rate")]);
  if (pastEnd(page)) return showOverview();
  const rows = page.rows.map((r) => "<tr data-node='" + esc(r.node) + "'>" + cell(nodeLink(r.node) + (r.flooding ? " <span class='bad'>flooding</span>" : "")) + cell(r.modules, "n") + cell(num(r.needs), "n") +
    cell(r.unanswered, "n" + (r.unanswered ? " bad" : "")) + cell(r.notApplied, "n" + (r.notApplied ? " bad" : "")) + cell(r.applied, "n") +
    cell(r.collect, "n") + cell(r.outOfShape, "n" + (r.outOfShape ? " bad" : "")) + cell(esc(ago(r.last)), "muted") + "</tr>");
  const focused = focusedId();
  view.innerHTML = (overview ? cards(overview) : "<div id='totals'></div>") +
    "<h2>Writes per second, last hour</h2>" + rateChart(rate) +
    "<h2>Nodes</h2>" + bar("nodes", { ...page, limit: PAGE }, "in the mesh", "<label><input id='problems' type='checkbox'" + (list.problems ? " checked" : "") + "> only nodes with something wrong</label>") +
    table("nodes", ["node", "modules", "needs", "unanswered", "not applied", "applied", "collect", "out of shape", "last change"], rows);
  wireBar(focused);
  document.getElementById("problems").onchange = (e) => { list.problems = e.target.checked; list.offset = 0; remember(); refresh(); };
}
`;
