/**
 * A node's page's view (runs in the browser; see dashboard-script.ts): its
 * counts, modules, needs with their answered flags, applied modules, collect
 * items and keys out of shape, as /api/node answers them.
 */
export const DASHBOARD_NODE = String.raw`
// A node's page: its counts, modules, needs, applied, collect items and keys out of shape.
async function showNode() {
  const d = await get("api/node?node=" + encodeURIComponent(NODE));
  document.title = NODE + " · mesh-provisioner";
  const r = d.row;
  const more = (part, what) => part.next ? "<p class='note'>the first " + num(part.entries.length) + " " + what + " are shown; ask the verb for the rest (after " + esc(part.next) + ")</p>" : "";
  const mods = new Map();
  for (const e of d.needs.entries) {
    const m = mods.get(e.module) || { needs: 0, kinds: new Set(), unanswered: 0 };
    m.needs++; m.kinds.add(e.kind); if (e.answered === false) m.unanswered++;
    mods.set(e.module, m);
  }
  const applied = new Map(d.applied.entries.map((e) => [e.module, e]));
  for (const m of applied.keys()) if (!mods.has(m)) mods.set(m, { needs: 0, kinds: new Set(), unanswered: 0 });
  const oos = ["needs", "applied", "collect"].flatMap((w) => d[w].outOfShape.map((o) => ({ what: w, ...o })));
  view.innerHTML = "<h2 id='node-title'>node " + esc(NODE) + "</h2>" +
    (r && r.flooding ? "<p class='note' id='node-flooding'>this node is flooding its keys: " + num(r.keys) + " keys, " + (r.bytes / 1048576).toFixed(1) + " MiB (revoke its grant, or raise --flood-keys / --flood-bytes)</p>" : "") +
    (r ? "<div class='cards' id='node-totals'>" + [["modules", r.modules], ["needs", r.needs], ["unanswered", r.unanswered], ["notApplied", r.notApplied], ["applied", r.applied], ["collect", r.collect], ["outOfShape", r.outOfShape]]
      .map(([k, v]) => "<div class='card" + (v && ["unanswered", "notApplied", "outOfShape"].includes(k) ? " bad" : "") + "' data-total='" + k + "'><b>" + num(v) + "</b>" + k.replace(/[A-Z]/g, (c) => " " + c.toLowerCase()) + "</div>").join("") + "</div>"
      : "<p class='note' id='no-node'>the mesh has no key of this node (yet)</p>") +
    "<h2>Modules</h2>" + table("modules", ["module", "needs", "kinds", "applied"], [...mods.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([m, x]) =>
      "<tr data-module='" + esc(m) + "'>" + cell(esc(m)) + cell(x.needs, "n") + cell(esc([...x.kinds].sort().join(", ")) + (x.unanswered ? " <span class='bad'>(" + x.unanswered + " unanswered)</span>" : "")) +
      (applied.has(m) ? cell("applied", "ok") : cell(x.needs ? "not applied" : "—", x.needs ? "missing" : "muted")) + "</tr>")) +
    "<h2>Needs</h2>" + more(d.needs, "needs") + table("needs", ["key", "kind", "name", "value", "answered"], d.needs.entries.map((e) =>
      "<tr data-key='" + esc(e.key) + "'>" + cell("<code>" + esc(e.key) + "</code>") + cell(kindLink(e.kind)) + cell(esc(e.name)) + cell("<code>" + esc(JSON.stringify(e.value)) + "</code>") +
      (e.answered === false ? cell("no domain answers it", "missing") : cell("answered", "ok")) + "</tr>")) +
    "<h2>Applied</h2>" + more(d.applied, "applied modules") + table("applied", ["module", "value", "revision"], d.applied.entries.map((e) =>
      "<tr data-key='" + esc(e.key) + "'>" + cell(esc(e.module)) + cell("<code>" + esc(JSON.stringify(e.value)) + "</code>") + cell(e.revision, "n") + "</tr>")) +
    "<h2>Collect</h2>" + more(d.collect, "collect items") + table("collect", ["collection", "contributor", "value"], d.collect.entries.map((e) =>
      "<tr data-key='" + esc(e.key) + "'>" + cell(collectionLink(e.collection)) + cell(esc(e.contributor)) + cell("<code>" + esc(typeof e.value === "string" ? e.value : JSON.stringify(e.value)) + "</code>") + "</tr>")) +
    "<h2>Keys out of shape</h2>" + table("oos", ["bucket", "key", "reason"], oos.map((o) =>
      "<tr data-key='" + esc(o.key) + "'>" + cell(esc(o.what)) + cell("<code>" + esc(o.key) + "</code>") + cell(esc(o.reason)) + "</tr>"));
}
`;
