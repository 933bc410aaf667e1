/**
 * The dashboard page's router and event stream (runs in the browser, last
 * on the page, once every view is defined): shows the view the URL names,
 * reads it again when the overview's counts move (the stream says so at most
 * twice a second),
 * when a change of the node on screen comes, and on every (re)connection,
 * and asks again what no event announces (instances, the rate's clock).
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
function refresh() {
  if (reading) { again = true; return reading; }
  reading = show().then(() => {
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
    // A count moved: read the list on screen again (the stream sends this at most twice a second).
    if (!NODE) soon(50);
  });
  es.addEventListener("change", () => soon(50));
  es.addEventListener("resync", () => soon(50));
}
connect();
`;
