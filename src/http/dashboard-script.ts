/**
 * The dashboard page's script (runs in the browser). Written without
 * backquotes or dollar-brace so it can sit in a template literal as it is.
 */
export const DASHBOARD_SCRIPT = String.raw`
"use strict";
const params = new URLSearchParams(location.search);
const NODE = params.get("node");
const PAGE = 50;
const view = document.getElementById("view");
const conn = document.getElementById("conn");
const list = { offset: Number(params.get("offset") || 0), match: params.get("match") || "", problems: params.get("problems") === "1" };
let token = sessionStorage.getItem("mesh-provisioner-token") || "";

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const num = (n) => Number(n).toLocaleString("en-US");
const cell = (v, cls) => "<td" + (cls ? " class='" + cls + "'" : "") + ">" + v + "</td>";
const table = (id, heads, rows) => "<table id='" + id + "'><thead><tr>" + heads.map((h) => "<th>" + h + "</th>").join("") + "</tr></thead><tbody>" +
  (rows.length ? rows.join("") : "<tr class='none'><td class='muted' colspan='" + heads.length + "'>none</td></tr>") + "</tbody></table>";
const nodeLink = (n) => "<a href='?node=" + encodeURIComponent(n) + "'>" + esc(n) + "</a>";
const ago = (last) => !last ? "" : last.what + " @" + last.revision + (last.at ? " · " + new Date(last.at).toLocaleTimeString() : "");

class Unauthorized extends Error {}
async function get(path) {
  const res = await fetch(path, { headers: token ? { authorization: "Bearer " + token } : {} });
  if (res.status === 401) throw new Unauthorized();
  const body = await res.json();
  if (!res.ok) throw new Error((body.error && body.error.message) || res.statusText);
  return body;
}

function askToken() {
  const form = document.getElementById("login");
  form.className = "shown";
  conn.textContent = "needs its token"; conn.className = "pill dead";
  form.onsubmit = (e) => {
    e.preventDefault();
    token = document.getElementById("token").value.trim();
    sessionStorage.setItem("mesh-provisioner-token", token);
    form.className = "";
    connect();
  };
}

// The header: seat and revisions, from any overview.
function header(o) {
  const h = o.seat && o.seat.holder;
  document.getElementById("seat").textContent = "seat: " + (h ? h.instance + " (" + h.host + ", pid " + h.pid + ")" : "nobody");
  document.getElementById("revisions").textContent =
    ["registry", "needs", "applied", "collect"].map((w) => w + " " + num(o.buckets[w].entries) + " @" + o.buckets[w].revision + (o.buckets[w].synced ? "" : " (catching up)") + started(o.buckets[w].start)).join(" · ");
}

// How a projection started: from its checkpoint, or the bucket read whole and why.
function started(s) {
  if (!s) return "";
  if (s.from === "checkpoint") return " (from checkpoint @" + s.revision + ")";
  if (s.from === "pending") return " (proving checkpoint @" + s.revision + ")";
  return s.reason === "missing" ? "" : " (read whole: " + s.reason + ")";
}

function cards(o) {
  const t = o.totals;
  const oos = t.outOfShape.needs + t.outOfShape.applied + t.outOfShape.collect + o.buckets.registry.outOfShape;
  const card = (name, value, label, bad) => "<div class='card" + (bad ? " bad" : "") + "' data-total='" + name + "'><b>" + num(value) + "</b>" + label + "</div>";
  return "<div id='totals'><div class='cards'>" +
    card("nodes", t.nodes, "nodes") +
    card("nodesWithProblems", t.nodesWithProblems, "nodes with something wrong", t.nodesWithProblems > 0) +
    card("modules", t.modules, "modules") +
    card("needs", t.needs, "needs") +
    card("unanswered", t.unanswered, "needs no domain answers", t.unanswered > 0) +
    card("notApplied", t.notApplied, "modules not applied", t.notApplied > 0) +
    card("collect", t.collect, "collect items") +
    card("registry", o.buckets.registry.entries, "kinds in the registry") +
    card("outOfShape", oos, "keys out of shape", oos > 0) +
    card("nodesFlooding", t.nodesFlooding, "nodes flooding their keys", t.nodesFlooding > 0) +
    "</div>" +
    (t.flooding.length ? "<p class='note' id='flooding'>flooding (revoke the node's grant, or raise --flood-keys / --flood-bytes): " +
      t.flooding.map((f) => nodeLink(f.node) + " " + num(f.keys) + " keys, " + (f.bytes / 1048576).toFixed(1) + " MiB").join(" · ") + "</p>" : "") +
    "</div>";
}

// The overview: totals, then one page of the node list, as the server pages and filters it.
let overview = null;
async function showOverview() {
  const q = "offset=" + list.offset + "&limit=" + PAGE + "&match=" + encodeURIComponent(list.match) + (list.problems ? "&problems=1" : "");
  const page = await get("api/nodes?" + q);
  if (page.matched > 0 && list.offset >= page.matched) { list.offset = Math.max(0, page.matched - PAGE); return showOverview(); }
  const first = page.matched === 0 ? 0 : page.offset + 1;
  const lastShown = page.offset + page.rows.length;
  const rows = page.rows.map((r) => "<tr data-node='" + esc(r.node) + "'>" + cell(nodeLink(r.node) + (r.flooding ? " <span class='bad'>flooding</span>" : "")) + cell(r.modules, "n") + cell(num(r.needs), "n") +
    cell(r.unanswered, "n" + (r.unanswered ? " bad" : "")) + cell(r.notApplied, "n" + (r.notApplied ? " bad" : "")) + cell(r.applied, "n") +
    cell(r.collect, "n") + cell(r.outOfShape, "n" + (r.outOfShape ? " bad" : "")) + cell(esc(ago(r.last)), "muted") + "</tr>");
  const focused = document.activeElement && document.activeElement.id;
  view.innerHTML = (overview ? cards(overview) : "<div id='totals'></div>") +
    "<h2>Nodes</h2><div class='bar'><input id='match' placeholder='filter by name' value='" + esc(list.match) + "'>" +
    "<label><input id='problems' type='checkbox'" + (list.problems ? " checked" : "") + "> only nodes with something wrong</label>" +
    "<button id='prev'" + (page.offset === 0 ? " disabled" : "") + ">‹ previous</button>" +
    "<span id='pager'>nodes " + num(first) + "–" + num(lastShown) + " of " + num(page.matched) + (page.matched !== page.total ? " matching (" + num(page.total) + " in the mesh)" : "") + "</span>" +
    "<button id='next'" + (lastShown >= page.matched ? " disabled" : "") + ">next ›</button></div>" +
    table("nodes", ["node", "modules", "needs", "unanswered", "not applied", "applied", "collect", "out of shape", "last change"], rows);
  const match = document.getElementById("match");
  if (focused === "match") { match.focus(); match.setSelectionRange(match.value.length, match.value.length); }
  let typing;
  match.oninput = () => { clearTimeout(typing); typing = setTimeout(() => { list.match = match.value; list.offset = 0; remember(); refresh(); }, 200); };
  document.getElementById("problems").onchange = (e) => { list.problems = e.target.checked; list.offset = 0; remember(); refresh(); };
  document.getElementById("prev").onclick = () => { list.offset = Math.max(0, list.offset - PAGE); remember(); refresh(); };
  document.getElementById("next").onclick = () => { list.offset += PAGE; remember(); refresh(); };
}

function remember() {
  const p = new URLSearchParams();
  if (list.offset) p.set("offset", String(list.offset));
  if (list.match) p.set("match", list.match);
  if (list.problems) p.set("problems", "1");
  history.replaceState(null, "", "?" + p.toString());
}

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
  view.innerHTML = "<p><a href='./'>‹ all nodes</a></p><h2 id='node-title'>node " + esc(NODE) + "</h2>" +
    (r && r.flooding ? "<p class='note' id='node-flooding'>this node is flooding its keys: " + num(r.keys) + " keys, " + (r.bytes / 1048576).toFixed(1) + " MiB (revoke its grant, or raise --flood-keys / --flood-bytes)</p>" : "") +
    (r ? "<div class='cards' id='node-totals'>" + [["modules", r.modules], ["needs", r.needs], ["unanswered", r.unanswered], ["notApplied", r.notApplied], ["applied", r.applied], ["collect", r.collect], ["outOfShape", r.outOfShape]]
      .map(([k, v]) => "<div class='card" + (v && ["unanswered", "notApplied", "outOfShape"].includes(k) ? " bad" : "") + "' data-total='" + k + "'><b>" + num(v) + "</b>" + k.replace(/[A-Z]/g, (c) => " " + c.toLowerCase()) + "</div>").join("") + "</div>"
      : "<p class='note' id='no-node'>the mesh has no key of this node (yet)</p>") +
    "<h2>Modules</h2>" + table("modules", ["module", "needs", "kinds", "applied"], [...mods.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([m, x]) =>
      "<tr data-module='" + esc(m) + "'>" + cell(esc(m)) + cell(x.needs, "n") + cell(esc([...x.kinds].sort().join(", ")) + (x.unanswered ? " <span class='bad'>(" + x.unanswered + " unanswered)</span>" : "")) +
      (applied.has(m) ? cell("applied", "ok") : cell(x.needs ? "not applied" : "—", x.needs ? "missing" : "muted")) + "</tr>")) +
    "<h2>Needs</h2>" + more(d.needs, "needs") + table("needs", ["key", "kind", "name", "value", "answered"], d.needs.entries.map((e) =>
      "<tr data-key='" + esc(e.key) + "'>" + cell("<code>" + esc(e.key) + "</code>") + cell(esc(e.kind)) + cell(esc(e.name)) + cell("<code>" + esc(JSON.stringify(e.value)) + "</code>") +
      (e.answered === false ? cell("no domain answers it", "missing") : cell("answered", "ok")) + "</tr>")) +
    "<h2>Applied</h2>" + more(d.applied, "applied modules") + table("applied", ["module", "value", "revision"], d.applied.entries.map((e) =>
      "<tr data-key='" + esc(e.key) + "'>" + cell(esc(e.module)) + cell("<code>" + esc(JSON.stringify(e.value)) + "</code>") + cell(e.revision, "n") + "</tr>")) +
    "<h2>Collect</h2>" + more(d.collect, "collect items") + table("collect", ["collection", "contributor", "value"], d.collect.entries.map((e) =>
      "<tr data-key='" + esc(e.key) + "'>" + cell(esc(e.collection)) + cell(esc(e.contributor)) + cell("<code>" + esc(typeof e.value === "string" ? e.value : JSON.stringify(e.value)) + "</code>") + "</tr>")) +
    "<h2>Keys out of shape</h2>" + table("oos", ["bucket", "key", "reason"], oos.map((o) =>
      "<tr data-key='" + esc(o.key) + "'>" + cell(esc(o.what)) + cell("<code>" + esc(o.key) + "</code>") + cell(esc(o.reason)) + "</tr>"));
}

// Read again what is shown: at most one read at a time, and one more if asked meanwhile.
let reading = null, again = false;
function refresh() {
  if (reading) { again = true; return reading; }
  reading = (NODE ? showNode() : showOverview()).then(() => {
    // Live only once the event stream is open too: what changes from now on reaches the page.
    if (es && es.readyState === EventSource.OPEN) { conn.textContent = "live"; conn.className = "pill live"; }
  }, (err) => {
    if (err instanceof Unauthorized) return askToken();
    conn.textContent = "error: " + err.message; conn.className = "pill dead";
  }).finally(() => { reading = null; if (again) { again = false; refresh(); } });
  return reading;
}

let changeTimer = null;
const soon = (ms) => { if (!changeTimer) changeTimer = setTimeout(() => { changeTimer = null; refresh(); }, ms); };

let es = null;
function connect() {
  if (es) es.close();
  const q = new URLSearchParams();
  if (NODE) q.set("node", NODE);
  if (token) q.set("access_token", token);
  es = new EventSource("events?" + q.toString());
  // Read at once, while the stream opens (its open reads again, so nothing between the two is missed).
  refresh();
  // Every (re)connection reads afresh what is shown: changes made while the stream was away were never sent.
  es.onopen = () => refresh();
  es.onerror = () => { conn.textContent = "reconnecting…"; conn.className = "pill dead"; if (es.readyState === EventSource.CLOSED) get("api/overview").catch((e) => { if (e instanceof Unauthorized) askToken(); }); };
  es.addEventListener("overview", (m) => {
    overview = JSON.parse(m.data);
    header(overview);
    const totals = document.getElementById("totals");
    if (totals) totals.outerHTML = cards(overview);
    if (!NODE) soon(500); // the list's counts moved: read the page on screen again, at most twice a second
  });
  es.addEventListener("change", () => soon(50));
  es.addEventListener("resync", () => soon(50));
}
connect();
`;
