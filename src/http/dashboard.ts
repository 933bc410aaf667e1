/**
 * The live dashboard: one self-contained page (no build step). It loads
 * `/api/snapshot`, then applies the server-sent events of `/events`, the same
 * changes the feed publishes, and redraws.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mesh-provisioner</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2330; background: #f7f8fa; }
  h1 { font-size: 1.3rem; margin: 0 0 .3rem; }
  h2 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
  .meta { color: #596273; margin-bottom: 1rem; }
  .pill { display: inline-block; padding: 0 .5rem; border-radius: 1rem; background: #e3e8f0; margin-right: .4rem; }
  .live { background: #d6f5df; } .dead { background: #fbe0e0; }
  table { border-collapse: collapse; background: white; box-shadow: 0 1px 2px #0001; }
  th, td { padding: .25rem .6rem; border-bottom: 1px solid #e8ebf0; text-align: left; vertical-align: top; }
  th { background: #eef1f6; font-weight: 600; }
  td.ok { color: #17753a; } td.missing { color: #a3261d; }
  code { font-size: 12px; }
</style>
</head>
<body>
<h1>mesh-provisioner</h1>
<div class="meta"><span id="conn" class="pill dead">connecting…</span><span id="seat" class="pill">seat: ?</span><span id="counts"></span></div>
<h2>Nodes × modules: needs against applied</h2>
<table id="nodes"><thead><tr><th>node</th><th>module</th><th>needs</th><th>kinds</th><th>applied</th></tr></thead><tbody></tbody></table>
<h2>Collections</h2>
<table id="collections"><thead><tr><th>collection</th><th>contributors</th><th>nodes</th></tr></thead><tbody></tbody></table>
<h2>Keys out of shape</h2>
<table id="oos"><thead><tr><th>bucket</th><th>key</th><th>reason</th></tr></thead><tbody></tbody></table>
<script>
const state = { registry: new Map(), needs: new Map(), applied: new Map(), collect: new Map(), oos: new Map(), seat: null, revision: {} };
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

function load(snap) {
  state.seat = snap.seat;
  for (const w of ["registry", "needs", "applied", "collect"]) {
    state[w].clear();
    for (const e of snap[w].entries) state[w].set(w === "registry" ? e.kind : e.key, e);
    for (const o of snap[w].outOfShape) state.oos.set(w + " " + o.key, { what: w, ...o });
    state.revision[w] = snap[w].revision;
  }
}

function apply(ev) {
  const map = state[ev.what];
  state.oos.delete(ev.what + " " + ev.key);
  map.delete(ev.key);
  if (ev.op === "put" && ev.entry) map.set(ev.key, ev.entry);
  if (ev.op === "put" && ev.outOfShape) state.oos.set(ev.what + " " + ev.key, { what: ev.what, ...ev.outOfShape });
  state.revision[ev.what] = ev.revision;
}

let pending = false;
function redraw() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; render(); });
}

function render() {
  const h = state.seat && state.seat.holder;
  document.getElementById("seat").textContent = "seat: " + (h ? h.instance + " (" + h.host + ", pid " + h.pid + ")" : "nobody");
  document.getElementById("counts").textContent =
    ["registry", "needs", "applied", "collect"].map((w) => w + " " + state[w].size + " @" + (state.revision[w] ?? 0)).join(" · ");
  const rows = new Map();
  for (const e of state.needs.values()) {
    const k = e.node + "\\u0000" + e.module;
    const r = rows.get(k) || { node: e.node, module: e.module, needs: 0, kinds: new Set() };
    r.needs++; r.kinds.add(e.kind + (e.answered === false ? " (unanswered)" : ""));
    rows.set(k, r);
  }
  for (const e of state.applied.values()) {
    const k = e.node + "\\u0000" + e.module;
    if (!rows.has(k)) rows.set(k, { node: e.node, module: e.module, needs: 0, kinds: new Set() });
  }
  const sorted = [...rows.values()].sort((a, b) => (a.node + a.module < b.node + b.module ? -1 : 1));
  document.querySelector("#nodes tbody").innerHTML = sorted.map((r) => {
    const applied = state.applied.has(r.node + "." + r.module);
    return "<tr data-key='" + esc(r.node + "." + r.module) + "'><td>" + esc(r.node) + "</td><td>" + esc(r.module) + "</td><td>" + r.needs +
      "</td><td>" + esc([...r.kinds].sort().join(", ")) + "</td><td class='" + (applied ? "ok'>applied" : "missing'>not applied") + "</td></tr>";
  }).join("");
  const cols = new Map();
  for (const e of state.collect.values()) {
    const c = cols.get(e.collection) || { contributors: new Set(), nodes: new Set() };
    c.contributors.add(e.contributor); c.nodes.add(e.node); cols.set(e.collection, c);
  }
  document.querySelector("#collections tbody").innerHTML = [...cols.entries()].sort().map(([name, c]) =>
    "<tr><td>" + esc(name) + "</td><td>" + esc([...c.contributors].sort().join(", ")) + "</td><td>" + esc([...c.nodes].sort().join(", ")) + "</td></tr>").join("");
  document.querySelector("#oos tbody").innerHTML = [...state.oos.values()].map((o) =>
    "<tr><td>" + esc(o.what) + "</td><td><code>" + esc(o.key) + "</code></td><td>" + esc(o.reason) + "</td></tr>").join("");
}

// Snapshot, then events of higher revision: on the first connection and again after every
// reconnection of the event stream, since changes made while it was away were never sent.
async function start() {
  const conn = document.getElementById("conn");
  let buffered = [];
  let loaded = false;
  const resync = async () => {
    loaded = false;
    buffered = [];
    try {
      const snap = await (await fetch("api/snapshot")).json();
      state.oos.clear();
      load(snap);
      for (const ev of buffered) if (ev.revision > (snap[ev.what]?.revision ?? 0)) apply(ev);
      loaded = true;
      conn.textContent = "live"; conn.className = "pill live";
      render();
    } catch (err) {
      conn.textContent = "reconnecting…"; conn.className = "pill dead";
      setTimeout(resync, 1000);
    }
  };
  const es = new EventSource("events");
  es.onopen = () => { resync(); };
  es.onerror = () => { loaded = false; conn.textContent = "reconnecting…"; conn.className = "pill dead"; };
  es.onmessage = (m) => {
    const ev = JSON.parse(m.data);
    if (!loaded) buffered.push(ev); else { apply(ev); redraw(); }
  };
}
start();
</script>
</body>
</html>
`;
