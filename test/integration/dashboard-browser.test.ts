import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV } from "@nats-io/kv";
import { connectTo } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";
import { Fleet, type ServiceProcess } from "../helpers/processes.js";
import { spawnServed } from "../helpers/served.js";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { BUCKETS } from "mesh-provisioner-client/keys";
import { WHATS, encodeName, type What } from "mesh-provisioner-client/keys";
import { ProvisionerClient } from "mesh-provisioner-client";
import { launch, missingChromium, screenshot } from "../helpers/chromium.js";

const skip = missingChromium();

/** A small, realistic mesh: three nodes, a few modules, some applied and some not, two collections, one key out of shape. */
const NEEDS: Record<string, unknown> = {
  "edge-1.web.config.listen": { default: ":443" },
  "edge-1.web.secret.tls-key": { length: 64 },
  "edge-1.web.port.https": { protocol: "tcp" },
  "edge-1.web.environment.LANG": { default: "C.UTF-8" },
  "edge-1.api.config.db-url": { default: "postgres://core-1/app" },
  "edge-1.api.consumers.orders": {},
  "edge-2.web.config.listen": { default: ":443" },
  "edge-2.web.port.https": { protocol: "tcp" },
  "core-1.postgres.dir.data": { mode: "0700" },
  "core-1.postgres.secret.superuser": { length: 32 },
  "core-1.metrics.port.scrape": { protocol: "tcp" },
  "core-1.metrics.tracing.endpoint": { default: "otel:4317" }, // a kind the registry does not answer
};
const APPLIED: Record<string, unknown> = {
  "edge-1.web": { at: "2024-05-01T12:00:00Z", revision: 7 },
  "edge-1.api": { at: "2024-05-01T12:00:03Z", revision: 5 },
  "core-1.postgres": { at: "2024-05-01T11:58:41Z", revision: 2 },
};
const SSH_KEYS = encodeName("ssh keys"); // "ssh=20keys"
const COLLECT: Record<string, string> = {
  "edge-1.shell.web": "export WEB_ROOT=/srv/www",
  "edge-2.shell.web": "export WEB_ROOT=/srv/www",
  "edge-1.shell.api": "export API_WORKERS=4",
  [`edge-1.${SSH_KEYS}.api`]: "ssh-ed25519 AAAAC3Nza… deploy@api",
  [`core-1.${SSH_KEYS}.postgres`]: "ssh-ed25519 AAAAC3Nza… backup@postgres",
};
const OUT_OF_SHAPE = "edge-2.web.config"; // a needs key with three tokens

const TOKEN = "browser-test-token-0123456789";

describe("the dashboard at / in a headless Chromium", { skip }, () => {
  let server: RunningNatsServer;
  let client: NatsConnection;
  let fleet: Fleet;
  let serve: ServiceProcess;
  let base: string;
  let browser: Browser | undefined;
  let page: Page;
  const pageErrors: string[] = [];
  const kvs = {} as Record<What, KV>;

  before(async () => {
    server = await startNatsServer();
    client = await connectTo(server);
    fleet = new Fleet({ server: server.url });
    ({ proc: serve, base } = await spawnServed(fleet, { name: "serve-dashboard" }));
    const kvm = new Kvm(client);
    for (const w of WHATS) kvs[w] = await kvm.open(BUCKETS[w]);

    for (const [k, v] of Object.entries(NEEDS)) await kvs.needs.put(k, JSON.stringify(v));
    await kvs.needs.put(OUT_OF_SHAPE, "three tokens");
    for (const [k, v] of Object.entries(APPLIED)) await kvs.applied.put(k, JSON.stringify(v));
    for (const [k, v] of Object.entries(COLLECT)) await kvs.collect.put(k, v);
    // The page starts from what the service holds: wait until it holds all of it (bounded).
    await eventually(
      async () => {
        assert.equal((await new ProvisionerClient(client).page({ what: "registry" })).entries.length, 13);
        assert.equal((await new ProvisionerClient(client).page({ what: "needs" })).entries.length, Object.keys(NEEDS).length);
        assert.equal((await new ProvisionerClient(client).page({ what: "applied" })).entries.length, Object.keys(APPLIED).length);
        assert.equal((await new ProvisionerClient(client).page({ what: "collect" })).entries.length, Object.keys(COLLECT).length);
      },
      { timeoutMs: 10_000, message: "the service did not catch up with the buckets" },
    );
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
    page.setDefaultTimeout(10_000);
    page.on("pageerror", (err) => pageErrors.push(err.message));
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    await fleet?.killAll();
    await client?.close().catch(() => undefined);
    await server?.stop();
  });

  const total = async (name: string): Promise<string> => ((await page.locator(`[data-total="${name}"] b`).textContent()) ?? "").trim();
  const nodeRow = (node: string): Promise<string[]> => page.locator(`#nodes tr[data-node="${node}"] td`).allTextContents();
  const listed = (): Promise<string[]> => page.locator("#nodes tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-node") ?? ""));

  test("the overview shows the mesh's totals, kept by the service, and a row per node", async () => {
    const res = await page.goto(`${base}/`, { waitUntil: "load" });
    assert.equal(res?.status(), 200);
    assert.equal(await page.title(), "mesh-provisioner");
    await page.waitForSelector("#conn.live");
    await page.waitForSelector('#nodes tr[data-node="edge-1"]');
    await page.waitForSelector('[data-total="nodes"]');

    assert.ok(serve.instance, "the service logged its instance");
    const seat = await page.locator("#seat").textContent();
    assert.ok(seat?.includes(serve.instance), `the seat names the holder's instance: ${seat}`);
    assert.ok(seat?.includes(`pid ${serve.pid}`), seat ?? "");
    assert.match((await page.locator("#revisions").textContent()) ?? "", /registry 13 @13/);

    const totals: Record<string, string> = {};
    for (const name of ["nodes", "nodesWithProblems", "modules", "needs", "unanswered", "notApplied", "collect", "registry", "outOfShape"])
      totals[name] = await total(name);
    assert.deepEqual(totals, {
      nodes: "3",
      nodesWithProblems: "2",
      modules: "5",
      needs: "12",
      unanswered: "1",
      notApplied: "2",
      collect: "5",
      registry: "13",
      outOfShape: "1",
    });

    assert.deepEqual(await listed(), ["core-1", "edge-1", "edge-2"]);
    // node, modules, needs, unanswered, not applied, applied, collect, out of shape
    assert.deepEqual((await nodeRow("edge-1")).slice(0, 8), ["edge-1", "2", "6", "0", "0", "2", "3", "0"]);
    assert.deepEqual((await nodeRow("edge-2")).slice(0, 8), ["edge-2", "1", "2", "0", "1", "0", "1", "1"]);
    assert.deepEqual((await nodeRow("core-1")).slice(0, 8), ["core-1", "2", "4", "1", "1", "1", "1", "0"]);
    assert.equal(await page.locator("#pager").textContent(), "nodes 1–3 of 3");
    assert.deepEqual(pageErrors, []);
  });

  test("a screenshot of the overview is a real picture (docs/dashboard.png with UPDATE_SCREENSHOT=1)", async () => {
    const path = screenshot("dashboard");
    mkdirSync(join(path, ".."), { recursive: true });
    await page.screenshot({ path, fullPage: true });
    assert.ok(statSync(path).size > 10_000, "a real picture, not an empty page");
  });

  test("the list is filtered by name and by 'something wrong' on the server, and the page says which part it shows", async () => {
    await page.fill("#match", "edge");
    await page.waitForFunction('document.querySelector("#pager").textContent.includes("of 2 matching")');
    assert.deepEqual(await listed(), ["edge-1", "edge-2"]);
    assert.equal(await page.locator("#pager").textContent(), "nodes 1–2 of 2 matching (3 in the mesh)");
    await page.fill("#match", "");
    await page.check("#problems");
    // The name filter also showed two of two: wait for the rows the problems filter shows, not the pager's count.
    await page.waitForFunction("document.querySelector('#nodes tbody tr[data-node=\"core-1\"]') !== null");
    assert.deepEqual(await listed(), ["core-1", "edge-2"]);
    assert.match(page.url(), /problems=1/);
    await page.uncheck("#problems");
    await page.waitForFunction('document.querySelector("#pager").textContent === "nodes 1–3 of 3"');
  });

  test("a new node appears in the list and in the totals without a reload", async () => {
    await page.evaluate("window.__notReloaded = true");
    await kvs.needs.put("edge-3.metrics.port.scrape", JSON.stringify({ protocol: "tcp" }));
    await page.waitForSelector('#nodes tr[data-node="edge-3"]', { timeout: 5_000 });
    await page.waitForFunction('document.querySelector(\'[data-total="nodes"] b\').textContent === "4"', undefined, { timeout: 5_000 });
    assert.equal(await page.evaluate("window.__notReloaded === true"), true, "no reload happened");
  });

  test("a node's page (/?node=) lists its modules, needs with answered flags, applied, collect items and keys out of shape", async () => {
    await page.click('#nodes tr[data-node="edge-2"] a');
    await page.waitForURL(/\?node=edge-2$/);
    await page.waitForSelector("#conn.live");
    await page.waitForSelector("#node-title");
    assert.equal(await page.locator("#node-title").textContent(), "node edge-2");
    const needs = await page.locator("#needs tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));
    assert.deepEqual(needs, [
      ["edge-2.web.config.listen", "config", "listen", '{"default":":443"}', "answered"],
      ["edge-2.web.port.https", "port", "https", '{"protocol":"tcp"}', "answered"],
    ]);
    assert.deepEqual(await page.locator('#modules tr[data-module="web"] td').allTextContents(), ["web", "2", "config, port", "not applied"]);
    assert.deepEqual(await page.locator("#collect tbody tr td").allTextContents(), ["shell", "web", "export WEB_ROOT=/srv/www"]);
    const oos = await page.locator("#oos tbody tr td").allTextContents();
    assert.deepEqual(oos.slice(0, 2), ["needs", OUT_OF_SHAPE]);
    assert.match(oos[2] ?? "", /needs keys have 4 tokens/);

    await page.goto(`${base}/?node=core-1`);
    await page.waitForSelector('#needs tr[data-key="core-1.metrics.tracing.endpoint"]');
    assert.equal((await page.locator('#needs tr[data-key="core-1.metrics.tracing.endpoint"] td').allTextContents())[4], "no domain answers it");
    assert.deepEqual(pageErrors, []);
  });

  test("on a node's page, a need put for that node shows without a reload, and the module turns applied when it is", async () => {
    await page.evaluate("window.__notReloaded = true");
    const t0 = Date.now();
    await kvs.needs.put("core-1.metrics.config.interval", JSON.stringify({ default: "15s" }));
    await page.waitForSelector('#needs tr[data-key="core-1.metrics.config.interval"]', { timeout: 5_000 });
    console.log(`MEASURED dashboard need_put_to_shown_ms=${Date.now() - t0}`);
    await kvs.applied.put("core-1.metrics", JSON.stringify({ at: "2024-05-01T12:01:10Z", revision: 1 }));
    await page.waitForFunction('document.querySelector(\'#modules tr[data-module="metrics"] td:last-child\').textContent === "applied"', undefined, {
      timeout: 5_000,
    });
    assert.equal(await page.evaluate("window.__notReloaded === true"), true, "no reload happened");
    assert.equal(await page.locator("#conn").textContent(), "live");
  });

  test("a screenshot of a node's page is a real picture (docs/dashboard-node.png with UPDATE_SCREENSHOT=1)", async () => {
    await kvs.applied.delete("core-1.metrics");
    await kvs.needs.delete("core-1.metrics.config.interval");
    await page.waitForFunction('document.querySelector(\'#modules tr[data-module="metrics"] td:last-child\').textContent === "not applied"');
    const path = screenshot("dashboard-node");
    await page.screenshot({ path, fullPage: true });
    assert.ok(statSync(path).size > 10_000, "a real picture, not an empty page");
  });

  test("after its event stream reconnects (the service restarted) the page shows the changes made while it was cut off", async () => {
    const address = new URL(base).host; // 127.0.0.1:PORT
    await serve.stop("SIGTERM");
    await page.waitForSelector("#conn.dead");
    await kvs.needs.put("core-1.cache.config.size", JSON.stringify({ mb: 256 }));
    // The same address again: the page's EventSource reconnects to it by itself.
    serve = fleet.spawn({ args: ["--http", address], name: "serve-dashboard-2" });
    await serve.waitForLine((l) => l.msg.startsWith("all projections synced"), 15_000, "all projections synced");
    await page.waitForSelector("#conn.live", { timeout: 15_000 });
    await page.waitForSelector('#needs tr[data-key="core-1.cache.config.size"]', { timeout: 5_000 });
  });

  test("with --http-token the page asks for the token, then shows the mesh", async () => {
    const { proc: guarded, base: guardedBase } = await spawnServed(fleet, { args: ["--http-token", TOKEN], name: "serve-dashboard-token", synced: false });
    const other = await (browser as Browser).newPage();
    try {
      await other.goto(`${guardedBase}/`);
      await other.waitForSelector("#login.shown");
      assert.equal(await other.locator('[data-total="nodes"]').count(), 0, "no data before the token");
      await other.fill("#token", TOKEN);
      await other.click("#login button");
      await other.waitForSelector("#conn.live");
      await other.waitForSelector('#nodes tr[data-node="edge-1"]');
    } finally {
      await other.close();
      await guarded.stop("SIGTERM");
    }
  });
});
