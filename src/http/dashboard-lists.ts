/**
 * The mesh-wide lists' views (runs in the browser; see dashboard-script.ts):
 * the registry, one kind's nodes, the needs no domain answers, the keys out
 * of shape, the collections and one collection's items. Each shows one page
 * of its list as the server pages and filters it, says which part of how
 * many it is, and links every kind, collection and node to its own page.
 */
export const DASHBOARD_LISTS = String.raw`
const PARAM = (k) => params.get(k) || "";

// Where a kind's values are, as its registry entry says.
function place(e) {
  if (!e) return "<span class='missing'>no domain answers it</span>";
  const where = e.verb ? "verb <code>" + esc(e.verb) + "</code>" : "bucket <code>" + esc(e.bucket || "?") + "</code>" + (e.key ? " key <code>" + esc(e.key) + "</code>" : "");
  return where + (e.collection ? " · collection " + collectionLink(e.collection) : "");
}

// The node columns of a list of nodes (as /api/nodes rows).
const nodeCells = (r) => cell(r.needs, "n") + cell(r.unanswered, "n" + (r.unanswered ? " bad" : "")) + cell(r.notApplied, "n" + (r.notApplied ? " bad" : "")) + cell(r.outOfShape, "n" + (r.outOfShape ? " bad" : ""));
const NODE_HEADS = ["needs", "unanswered", "not applied", "out of shape"];

async function showRegistry() {
  const page = await get("api/registry?" + listQuery());
  if (pastEnd(page)) return showRegistry();
  const focused = focusedId();
  view.innerHTML = "<h2 id='page-title'>Registry: which domain answers each kind</h2>" +
    "<p class='muted'>A need is answered while the registry holds its kind; kinds that needs name and the registry does not are listed too.</p>" +
    bar("kinds", page, "kinds") +
    table("kinds", ["kind", "domain", "where its values are", "needs across the mesh", "revision"], page.rows.map((k) =>
      "<tr data-kind='" + esc(k.kind) + "'>" + cell(kindLink(k.kind)) + cell(k.entry ? esc(k.entry.module || "") : "—", k.entry ? "" : "missing") + cell(place(k.entry)) +
      cell(num(k.needs), "n" + (!k.answered && k.needs ? " bad" : "")) + cell(k.revision === null ? "" : k.revision, "n muted") + "</tr>"));
  wireBar(focused);
}

async function showKind() {
  const kind = PARAM("kind");
  document.title = "kind " + kind + " · mesh-provisioner";
  const d = await get("api/kind?" + listQuery({ kind }));
  if (pastEnd(d.nodes)) return showKind();
  const focused = focusedId();
  view.innerHTML = "<p><a href='" + href({ page: "registry" }) + "'>‹ registry</a></p><h2 id='page-title'>kind " + esc(kind) + "</h2>" +
    "<div class='cards'><div class='card" + (d.answered ? "" : " bad") + "' data-total='kindNeeds'><b>" + num(d.needs) + "</b>needs across the mesh</div></div>" +
    "<p id='kind-place'>" + (d.answered ? "answered by <b>" + esc(d.entry.module || "?") + "</b>: " : "") + place(d.entry) + "</p>" +
    "<h2>Nodes with needs of this kind</h2>" + bar("nodes", d.nodes, "in the mesh") +
    table("kind-nodes", ["node", "needs of this kind"].concat(NODE_HEADS), d.nodes.rows.map((r) =>
      "<tr data-node='" + esc(r.node) + "'>" + cell(nodeLink(r.node)) + cell(num(r.ofKind), "n") + nodeCells(r) + "</tr>"));
  wireBar(focused);
}

async function showUnanswered() {
  const d = await get("api/unanswered?" + listQuery());
  if (pastEnd(d.nodes)) return showUnanswered();
  const focused = focusedId();
  view.innerHTML = "<h2 id='page-title'>Needs no domain answers</h2>" +
    "<p class='muted'>" + num(d.needs) + " needs of " + num(d.kindsTotal) + " kinds the registry does not hold; a node's page shows which of its needs they are.</p>" +
    table("unanswered-kinds", ["kind", "needs"], d.kinds.map((k) => "<tr data-kind='" + esc(k.kind) + "'>" + cell(kindLink(k.kind)) + cell(num(k.needs), "n bad") + "</tr>")) +
    (d.kinds.length < d.kindsTotal ? "<p class='note'>the " + num(d.kinds.length) + " kinds with the most needs of " + num(d.kindsTotal) + " are shown</p>" : "") +
    "<h2>Nodes with needs no domain answers</h2>" + bar("nodes", d.nodes, "in the mesh") +
    table("unanswered-nodes", ["node"].concat(NODE_HEADS), d.nodes.rows.map((r) => "<tr data-node='" + esc(r.node) + "'>" + cell(nodeLink(r.node)) + nodeCells(r) + "</tr>"));
  wireBar(focused);
}

async function showOutOfShape() {
  const what = PARAM("what");
  const page = await get("api/out-of-shape?" + listQuery(what ? { what } : null));
  if (pastEnd(page)) return showOutOfShape();
  const focused = focusedId();
  const pick = "<select id='what'>" + ["", "registry", "needs", "applied", "collect"].map((w) => "<option value='" + w + "'" + (w === what ? " selected" : "") + ">" + (w || "every bucket") + "</option>").join("") + "</select>";
  view.innerHTML = "<h2 id='page-title'>Keys out of shape</h2>" +
    "<p class='muted'>Keys no reader can use as they are: the service keeps them aside and says why. Filter by key.</p>" +
    bar("keys", page, "out of shape", pick) +
    table("oos-keys", ["bucket", "key", "node", "why", "revision"], page.rows.map((o) =>
      "<tr data-key='" + esc(o.key) + "'>" + cell(esc(o.what)) + cell("<code>" + esc(o.key) + "</code>") + cell(o.node ? nodeLink(o.node) : "—", o.node ? "" : "muted") +
      cell(esc(o.reason)) + cell(o.revision, "n muted") + "</tr>"));
  wireBar(focused);
  document.getElementById("what").onchange = (e) => {
    if (e.target.value) params.set("what", e.target.value); else params.delete("what");
    list.offset = 0; remember(); refresh();
  };
}

async function showCollections() {
  const page = await get("api/collections?" + listQuery());
  if (pastEnd(page)) return showCollections();
  const focused = focusedId();
  view.innerHTML = "<h2 id='page-title'>Collections</h2>" + bar("collections", page, "in the mesh") +
    table("collections", ["collection", "items across the mesh"], page.rows.map((c) =>
      "<tr data-collection='" + esc(c.collection) + "'>" + cell(collectionLink(c.collection)) + cell(num(c.items), "n") + "</tr>"));
  wireBar(focused);
}

async function showCollection() {
  const collection = PARAM("collection");
  document.title = "collection " + collection + " · mesh-provisioner";
  const page = await get("api/collection?" + listQuery({ collection }));
  if (pastEnd(page)) return showCollection();
  const focused = focusedId();
  view.innerHTML = "<p><a href='" + href({ page: "collections" }) + "'>‹ collections</a></p><h2 id='page-title'>collection " + esc(collection) + "</h2>" +
    "<p class='muted'>Each item as the node wrote it, and who contributed it. Filter by node or contributor.</p>" +
    bar("items", page, "in the collection") +
    table("collection-items", ["node", "contributor", "value", "revision"], page.rows.map((e) =>
      "<tr data-key='" + esc(e.key) + "'>" + cell(nodeLink(e.node)) + cell(esc(e.contributor)) + cell(value(e.value)) + cell(e.revision, "n muted") + "</tr>"));
  wireBar(focused);
}
`;
