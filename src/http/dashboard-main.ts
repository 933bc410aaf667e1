/**
 * The dashboard page's router and event stream (runs in the browser, last
 * on the page, once every view is defined): shows the view the URL names,
 * live once the stream is open and what is shown is as new as the stream's
 * first overview (read at the same revisions, or after it: else it reads
 * again), so nothing applied between a read and the stream's start is
 * missed. It reads again when the overview's counts move (the stream says so
 * at most twice a second), when a change of the node on screen comes, and
 * asks again what no event announces (instances, the rate's clock).
 */
export const DASHBOARD_MAIN = String.raw`
const PAGES = {
  overview: showOverview, node: showNode, registry: showRegistry, kind: showKind, unanswered: showUnanswered,
  "out-of-shape": showOutOfShape, collections: showCollections, collection: showCollection, instances: showInstances,
};
const show = PAGES[PAGE_NAME] || (async () => { view.innerHTML = "<p class='note'>no such page: " + esc(PAGE_NAME) + "</p>"; });
for (const a of document.querySelectorAll("#nav a")) if (a.dataset.page === PAGE_NAME) a.className = "here";

// Read again what is shown: at most one read at a time, and one more if asked meanwhile.
let reading = null, again = false;
// The revisions what is on screen was read at, and those of the stream's first overview since it (re)connected.
let shownRevisions = null, streamRevisions = null;
function setLive() { conn.textContent = "live"; conn.className = "pill live"; }
function refresh() {
  if (reading) { again = true; return reading; }
  readRevisions = null;
  // A read that starts once the stream's first overview came sees everything the stream has not sent.
  const afterStream = streamRevisions !== null;
  reading = show().then(() => {
    shownRevisions = readRevisions === "mixed" ? null : readRevisions;
    // Live only once the stream is open and what is shown is at least as new as where it started.
    if (es && es.readyState === EventSource.OPEN && streamRevisions !== null) {
      if (afterStream || shownRevisions === streamRevisions) setLive(); else again = true;
    }
  }, (err) => {
    if (err instanceof Unauthorized) return askToken();
    conn.textContent = "error: " + err.message; conn.className = "pill dead";
  }).finally(() => { reading = null; if (again) { again = false; refresh(); } });
  return reading;
}

// The stream's first overview after it (re)connected: what was read before is current if it was read at the same revisions.
function streamStarted(o) {
  streamRevisions = ["registry", "needs", "applied", "collect"].map((w) => o.buckets[w].revision).join(",");
  if (reading) return; // its end compares
  if (shownRevisions === streamRevisions) setLive(); else refresh();
}

let changeTimer = null;
const soon = (ms) => { if (!changeTimer) changeTimer = setTimeout(() => { changeTimer = null; refresh(); }, ms); };
// What no event announces: the instances (asked of the mesh), and the rate chart's clock moving on.
const POLL_MS = { instances: 2000, overview: 10000 };
if (POLL_MS[PAGE_NAME]) setInterval(() => { if (!document.hidden) soon(0); }, POLL_MS[PAGE_NAME]);

let es = null;
function connect() {
  if (es) es.close();
  const q = new URLSearchParams();
  if (NODE) q.set("node", NODE);
  if (token) q.set("access_token", token);
  es = new EventSource("events?" + q.toString());
  // Read at once, while the stream opens; its first overview says whether that read missed anything.
  streamRevisions = null;
  refresh();
  // Every (re)connection starts over: changes made while the stream was away were never sent.
  es.onopen = () => { streamRevisions = null; };
  es.onerror = () => { conn.textContent = "reconnecting…"; conn.className = "pill dead"; if (es.readyState === EventSource.CLOSED) get("api/overview").catch((e) => { if (e instanceof Unauthorized) askToken(); }); };
  es.addEventListener("overview", (m) => {
    overview = JSON.parse(m.data);
    header(overview);
    const totals = document.getElementById("totals");
    if (totals) totals.outerHTML = cards(overview);
    if (streamRevisions === null) { streamStarted(overview); return; }
    // A count moved: read the list on screen again (the stream sends this at most twice a second).
    if (!NODE) soon(50);
  });
  es.addEventListener("change", () => soon(50));
  es.addEventListener("resync", () => soon(50));
}
connect();
`;
