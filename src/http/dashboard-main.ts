/**
 * The dashboard page's router and event stream (runs in the browser, last
 * on the page, once every view is defined): shows the view the URL names,
 * live once the stream is open and what is shown is as new as the stream's
 * first overview (read at its revisions or past them, or after it: else it
 * reads again), so nothing applied between a read and the stream's start is
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
// Until its first answer the page says what it is loading, in a neutral pill: red is for a failure only.
const LOADING = {
  overview: "the overview", registry: "the registry", kind: "kind " + params.get("kind"), unanswered: "the needs no domain answers",
  "out-of-shape": "the keys out of shape", collections: "the collections", collection: "collection " + params.get("collection"),
  instances: "the instances (asking every instance on the bus)", node: "node " + NODE,
};
const loading = document.getElementById("loading");
if (loading && LOADING[PAGE_NAME]) loading.textContent = "loading " + LOADING[PAGE_NAME] + "…";

// Read again what is shown: at most one read at a time, and one more if asked meanwhile.
let reading = null, again = false;
// The revisions what is on screen was read at, and those of the stream's first overview since it (re)connected.
let shownRevisions = null, streamRevisions = null;
// The read started when the stream's first overview came while another was in flight: it makes the page live.
let streamRead = null;
function setLive() { if (stream && stream.open) { conn.textContent = "live"; conn.className = "pill live"; } }

// One read of what is shown. Live once the stream has started and what is shown is as new as where it started:
// read after its first overview, or read at its revisions or past them.
function read() {
  const gen = ++readGen;
  const afterStream = streamRevisions !== null;
  return show().then(() => {
    shownGen = Math.max(shownGen, gen);
    const revs = readRevisions.get(gen);
    for (const g of readRevisions.keys()) if (g <= gen) readRevisions.delete(g);
    shownRevisions = revs === undefined || revs === "unknown" ? null : revs;
    // Shown, not yet live: neutral (a read's failure or the token asked for is over; a lost stream still shows).
    if (conn.className !== "pill live" && conn.textContent !== "reconnecting…") { conn.textContent = "connecting…"; conn.className = "pill"; }
    if (streamRevisions === null) return;
    if (afterStream || atOrPast(shownRevisions, streamRevisions)) setLive();
    else if (!streamRead) again = true;
  }, (err) => {
    if (err instanceof Superseded) return;
    if (err instanceof Unauthorized) return askToken();
    conn.textContent = "error: " + err.message; conn.className = "pill dead";
    const still = document.getElementById("loading");
    if (still) { still.textContent = "could not load " + (LOADING[PAGE_NAME] || PAGE_NAME) + ": " + err.message; still.className = "bad"; }
  });
}

function refresh() {
  if (reading) { again = true; return reading; }
  reading = read().finally(() => { reading = null; if (again) { again = false; refresh(); } });
  return reading;
}

// The stream's first overview after it (re)connected. What was read before is current if read at its revisions
// or past them (what changed since comes as events); a read still in flight is not waited for: a new one starts
// beside it (the newer one is drawn).
function streamStarted(o) {
  streamRevisions = ["registry", "needs", "applied", "collect"].map((w) => o.buckets[w].revision).join(",");
  if (reading) { streamRead = read().finally(() => { streamRead = null; }); return; }
  if (atOrPast(shownRevisions, streamRevisions)) setLive(); else refresh();
}

let changeTimer = null;
const soon = (ms) => { if (!changeTimer) changeTimer = setTimeout(() => { changeTimer = null; refresh(); }, ms); };
// What no event announces: the instances (asked of the mesh), and the rate chart's clock moving on.
const POLL_MS = { instances: 2000, overview: 10000 };
if (POLL_MS[PAGE_NAME]) setInterval(() => { if (!document.hidden) soon(0); }, POLL_MS[PAGE_NAME]);

let stream = null;
function connect() {
  if (stream) stream.close();
  // Read at once, while the stream opens; its first overview says whether that read missed anything.
  streamRevisions = null;
  stream = openStream("events" + (NODE ? "?node=" + encodeURIComponent(NODE) : ""), {
    // Every (re)connection starts over: changes made while the stream was away were never sent.
    open: () => { streamRevisions = null; },
    lost: (unauthorized) => {
      conn.textContent = "reconnecting…"; conn.className = "pill dead";
      if (unauthorized) askToken();
    },
    event: (name, data) => {
      if (name === "change" || name === "resync") return soon(50);
      if (name !== "overview") return;
      overview = JSON.parse(data);
      header(overview);
      const totals = document.getElementById("totals");
      if (totals) totals.outerHTML = cards(overview);
      if (streamRevisions === null) return streamStarted(overview);
      // A count moved: read the list on screen again (the stream sends this at most twice a second).
      if (!NODE) soon(50);
    },
  });
  refresh();
}
connect();
`;
