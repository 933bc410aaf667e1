/**
 * The dashboard's page: one self-contained page, no build step, no
 * framework and nothing loaded from elsewhere. Without parameters it shows
 * the mesh's totals, the change rate and one page of the node list (paged,
 * sorted and filtered by the server); `?node=<node>` that node's page;
 * `?page=` the registry, a kind, the needs no domain answers, the keys out
 * of shape, the collections, a collection or the instances. It reads what it
 * shows from `/api/*` and stays live on `/events` (the node on screen only,
 * and the overview's counts, throttled), reading again what it shows
 * whenever the stream (re)connects.
 */
import { DASHBOARD_SCRIPT } from "./dashboard-script.js";
import { DASHBOARD_OVERVIEW } from "./dashboard-overview.js";
import { DASHBOARD_CHART } from "./dashboard-chart.js";
import { DASHBOARD_NODE } from "./dashboard-node.js";
import { DASHBOARD_LISTS } from "./dashboard-lists.js";
import { DASHBOARD_INSTANCES } from "./dashboard-instances.js";
import { DASHBOARD_MAIN } from "./dashboard-main.js";
import { DASHBOARD_STREAM } from "./dashboard-stream.js";

const PAGES: readonly (readonly [string, string])[] = [
  ["overview", "Overview"],
  ["registry", "Registry"],
  ["unanswered", "Needs unanswered"],
  ["out-of-shape", "Keys out of shape"],
  ["collections", "Collections"],
  ["instances", "Instances"],
];
const NAV = PAGES.map(([page, label]) => `<a data-page="${page}" href="${page === "overview" ? "./" : `?page=${page}`}">${label}</a>`).join(" ");

export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mesh-provisioner</title>
<link rel="icon" href="data:,">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2330; background: #f7f8fa; }
  h1 { font-size: 1.3rem; margin: 0 0 .3rem; } h1 a { color: inherit; text-decoration: none; }
  h2 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
  .meta { color: #596273; margin-bottom: 1rem; }
  .pill { display: inline-block; padding: 0 .5rem; border-radius: 1rem; background: #e3e8f0; margin-right: .4rem; }
  .live { background: #d6f5df; } .dead { background: #fbe0e0; }
  .cards { display: flex; flex-wrap: wrap; gap: .6rem; margin: .4rem 0 1rem; }
  .card { background: white; box-shadow: 0 1px 2px #0001; padding: .5rem .8rem; min-width: 8rem; }
  .card b { display: block; font-size: 1.35rem; } .card.bad b { color: #a3261d; }
  .bar { display: flex; gap: .8rem; align-items: center; margin: .4rem 0; flex-wrap: wrap; }
  table { border-collapse: collapse; background: white; box-shadow: 0 1px 2px #0001; }
  th, td { padding: .25rem .6rem; border-bottom: 1px solid #e8ebf0; text-align: left; vertical-align: top; }
  th { background: #eef1f6; font-weight: 600; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
  .ok { color: #17753a; } .missing, .bad { color: #a3261d; } .muted { color: #7a8394; }
  code { font-size: 12px; } .note { color: #7a4a00; background: #fff4d6; padding: .3rem .6rem; display: inline-block; }
  #login { display: none; } #login.shown { display: block; }
  nav { margin: 0 0 .8rem; display: flex; gap: .2rem; flex-wrap: wrap; } nav a { padding: .2rem .6rem; border-radius: .3rem; color: #2d5fa8; text-decoration: none; }
  nav a.here { background: #dfe7f5; color: #1d2330; font-weight: 600; } nav a:hover { background: #eef1f6; }
  [hidden] { display: none !important; }
  a.card, a.pill { color: inherit; text-decoration: none; } a.card:hover { box-shadow: 0 0 0 2px #8fb3e8; }
  .charts { display: flex; flex-wrap: wrap; gap: .6rem; } .rate { margin: 0; background: white; box-shadow: 0 1px 2px #0001; padding: .4rem .5rem; }
  .rate svg { display: block; } .rate figcaption { font-size: 12px; color: #596273; } .axis { font-size: 12px; margin: .2rem 0 0; }
</style>
</head>
<body>
<h1><a href="./">mesh-provisioner</a></h1>
<div class="meta"><span id="conn" class="pill">loading…</span><a id="seat" class="pill" href="?page=instances">seat: ?</a><span id="revisions" class="muted"></span><span id="stale" class="pill note" hidden></span></div>
<nav id="nav">${NAV}</nav>
<form id="login"><p>This dashboard needs its token (<code>--http-token</code>).</p><input id="token" type="password" size="40" autocomplete="off"> <button>Open</button></form>
<main id="view"><p id="loading" class="muted">loading…</p></main>
<script>
${[DASHBOARD_SCRIPT, DASHBOARD_OVERVIEW, DASHBOARD_CHART, DASHBOARD_NODE, DASHBOARD_LISTS, DASHBOARD_INSTANCES, DASHBOARD_STREAM, DASHBOARD_MAIN].join("\n")}
</script>
</body>
</html>
`;
