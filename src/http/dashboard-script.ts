/**
 * The dashboard page's script (runs in the browser): what every page shares.
 * The page's state is its URL (`?page=`, `?node=`, `offset`, `match` and the
 * page's own parameters), so a page can be linked, bookmarked and reloaded.
 * Each page's view is in its own file (dashboard-*.ts) and is a function
 * `show…()` that reads its API and writes `view`; DASHBOARD_MAIN (last on the
 * page) picks the one the URL names and keeps it live.
 *
 * Written without backquotes or dollar-brace so each part can sit in a
 * template literal as it is. Every value from the mesh goes through `esc`.
 */
export const DASHBOARD_SCRIPT = String.raw`
"use strict";
const params = new URLSearchParams(location.search);
const NODE = params.get("node");
const PAGE_NAME = NODE ? "node" : params.get("page") || "overview";
const PAGE = 50;
const view = document.getElementById("view");
const conn = document.getElementById("conn");
// Every list page's state: which part of the list, filtered by what (problems: the overview only).
const list = { offset: Number(params.get("offset") || 0), match: params.get("match") || "", problems: params.get("problems") === "1" };
let token = sessionStorage.getItem("mesh-provisioner-token") || "";

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const num = (n) => Number(n).toLocaleString("en-US");
const cell = (v, cls) => "<td" + (cls ? " class='" + cls + "'" : "") + ">" + v + "</td>";
const table = (id, heads, rows) => "<table id='" + id + "'><thead><tr>" + heads.map((h) => "<th>" + h + "</th>").join("") + "</tr></thead><tbody>" +
  (rows.length ? rows.join("") : "<tr class='none'><td class='muted' colspan='" + heads.length + "'>none</td></tr>") + "</tbody></table>";
const href = (q) => "?" + new URLSearchParams(q).toString();
const nodeLink = (n) => "<a href='" + href({ node: n }) + "'>" + esc(n) + "</a>";
const kindLink = (k) => "<a href='" + href({ page: "kind", kind: k }) + "'>" + esc(k) + "</a>";
const collectionLink = (c) => "<a href='" + href({ page: "collection", collection: c }) + "'>" + esc(c) + "</a>";
const ago = (last) => !last ? "" : last.what + " @" + last.revision + (last.at ? " · " + new Date(last.at).toLocaleTimeString() : "");
const value = (v) => "<code>" + esc(typeof v === "string" ? v : JSON.stringify(v)) + "</code>";

class Unauthorized extends Error {}
// A read whose answer came after a newer read was shown: dropped, never drawn over newer data.
class Superseded extends Error {}
// Reads are numbered as they start; readGen is the one starting now, shownGen the newest shown.
let readGen = 0, shownGen = 0;
// The projections' revisions each read's answers came at, by read: the least of each over the read's answers
// (what is shown is at least that new), or "unknown" when an answer did not say.
const readRevisions = new Map();
function leastRevisions(a, b) {
  if (a === undefined) return b === null ? "unknown" : b;
  if (a === "unknown" || b === null) return "unknown";
  const y = b.split(",");
  return a.split(",").map((x, i) => Math.min(Number(x), Number(y[i]))).join(",");
}
// Whether revisions "a,b,c,d" are each at or past those of "w,x,y,z".
function atOrPast(a, b) {
  if (a === null || b === null) return false;
  const y = b.split(",");
  return a.split(",").every((x, i) => Number(x) >= Number(y[i]));
}
async function get(path) {
  const gen = readGen;
  const res = await fetch(path, { headers: token ? { authorization: "Bearer " + token } : {} });
  if (res.status === 401) throw new Unauthorized();
  if (gen < shownGen) throw new Superseded();
  readRevisions.set(gen, leastRevisions(readRevisions.get(gen), res.headers.get("x-mesh-revisions")));
  const body = await res.json();
  if (gen < shownGen) throw new Superseded();
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
  // A projection that has heard nothing from its stream for --stale-after (a site cut off from its hub): what the page shows may be behind.
  const stale = ["registry", "needs", "applied", "collect"].filter((w) => o.buckets[w].staleSince);
  const pill = document.getElementById("stale");
  pill.hidden = stale.length === 0;
  pill.textContent = stale.length === 0 ? "" : "may be stale: " + stale.join(", ") + " heard nothing from the bus since " +
    stale.map((w) => o.buckets[w].staleSince).sort()[0].replace("T", " ").slice(0, 19) + " UTC";
}

// How a projection started: from its checkpoint, or the bucket read whole and why.
function started(s) {
  if (!s) return "";
  if (s.from === "checkpoint") return " (from checkpoint @" + s.revision + ")";
  if (s.from === "pending") return " (proving checkpoint @" + s.revision + ")";
  return s.reason === "missing" ? "" : " (read whole: " + s.reason + ")";
}

// The URL keeps the page's state: a reload or a shared link shows the same part of the same list.
function remember() {
  const p = new URLSearchParams();
  for (const k of ["page", "node", "kind", "collection", "what"]) if (params.get(k)) p.set(k, params.get(k));
  if (list.offset) p.set("offset", String(list.offset));
  if (list.match) p.set("match", list.match);
  if (list.problems) p.set("problems", "1");
  history.replaceState(null, "", "?" + p.toString());
}

// "nodes 1–12 of 12 matching (10,000 in the mesh)": which part of how long a list the page shows; an empty list
// says so in words ("no items", "no nodes matching (10,000 in the mesh)").
function pagerText(noun, page, whole) {
  const of = page.matched !== page.total ? " matching (" + num(page.total) + " " + whole + ")" : "";
  if (page.matched === 0) return "no " + noun + of;
  const first = page.offset + 1;
  const last = page.offset + page.rows.length;
  return noun + " " + num(first) + "–" + num(last) + " of " + num(page.matched) + of;
}

// A list's bar: the name filter, any extra controls, and the pager. Wire it with wireBar once it is on the page.
function bar(noun, page, whole, extra) {
  return "<div class='bar'><input id='match' placeholder='filter by name' value='" + esc(list.match) + "'>" + (extra || "") +
    "<button id='prev'" + (page.offset === 0 ? " disabled" : "") + ">‹ previous</button>" +
    "<span id='pager'>" + pagerText(noun, page, whole) + "</span>" +
    "<button id='next'" + (page.offset + page.rows.length >= page.matched ? " disabled" : "") + ">next ›</button></div>";
}

// The list's page was past its end (it shrank): show its last page instead. True when it moved.
function pastEnd(page) {
  if (page.matched > 0 && list.offset >= page.matched) { list.offset = Math.max(0, page.matched - page.limit); return true; }
  return false;
}

let typing;
function wireBar(focused) {
  const match = document.getElementById("match");
  if (focused === "match") { match.focus(); match.setSelectionRange(match.value.length, match.value.length); }
  match.oninput = () => { clearTimeout(typing); typing = setTimeout(() => { list.match = match.value; list.offset = 0; remember(); refresh(); }, 200); };
  document.getElementById("prev").onclick = () => { list.offset = Math.max(0, list.offset - PAGE); remember(); refresh(); };
  document.getElementById("next").onclick = () => { list.offset += PAGE; remember(); refresh(); };
}

// A list API's query: the part on screen, filtered by name, with the page's own parameters.
const listQuery = (extra) => "offset=" + list.offset + "&limit=" + PAGE + "&match=" + encodeURIComponent(list.match) + (extra ? "&" + new URLSearchParams(extra).toString() : "");
const focusedId = () => document.activeElement && document.activeElement.id;
`;
