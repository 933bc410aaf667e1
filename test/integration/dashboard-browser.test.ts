import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { accessSync, constants as fsc, mkdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import type { NatsConnection } from "@nats-io/nats-core";
import { Kvm, type KV } from "@nats-io/kv";
import { connectTo } from "../helpers/stack.js";
import { eventually } from "../helpers/eventually.js";
import { Fleet, type ServiceProcess } from "../helpers/processes.js";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { BUCKETS } from "../../src/projections/buckets.js";
import { WHATS, encodeName, type What } from "../../src/keys/mod.js";
import { ask } from "../../src/verb/client.js";

const CHROMIUM = "/usr/bin/chromium";
// dist/test/integration/ -> the repository's docs/
// The committed picture is refreshed only on request (UPDATE_SCREENSHOT=1); a plain test run leaves the tree clean.
const SCREENSHOT =
  process.env["UPDATE_SCREENSHOT"] === "1"
    ? fileURLToPath(new URL("../../../docs/dashboard.png", import.meta.url))
    : join(tmpdir(), `mesh-provisioner-dashboard-${process.pid}.png`);

function missingChromium(): string | false {
  try {
    accessSync(CHROMIUM, fsc.X_OK);
    return false;
  } catch {
    return `Debian's Chromium is not installed at ${CHROMIUM} (sudo apt-get install chromium): the dashboard is not checked in a browser`;
  }
}

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
    serve = fleet.spawn({ args: ["--http", "127.0.0.1:0"], name: "serve-dashboard" });
    const serving = await serve.waitForLine((l) => l.msg.startsWith("serving /healthz"), 15_000, "serving /healthz …");
    base = String(serving.fields["url"]);
    await serve.waitForLine((l) => l.msg.startsWith("all projections synced"), 15_000, "all projections synced");
    const kvm = new Kvm(client);
    for (const w of WHATS) kvs[w] = await kvm.open(BUCKETS[w]);

    for (const [k, v] of Object.entries(NEEDS)) await kvs.needs.put(k, JSON.stringify(v));
    await kvs.needs.put(OUT_OF_SHAPE, "three tokens");
    for (const [k, v] of Object.entries(APPLIED)) await kvs.applied.put(k, JSON.stringify(v));
    for (const [k, v] of Object.entries(COLLECT)) await kvs.collect.put(k, v);
    // The page starts from the snapshot: wait until the service holds all of it (bounded).
    await eventually(
      async () => {
        assert.equal((await ask(client, { what: "registry" })).entries.length, 13);
        assert.equal((await ask(client, { what: "needs" })).entries.length, Object.keys(NEEDS).length);
        assert.equal((await ask(client, { what: "applied" })).entries.length, Object.keys(APPLIED).length);
        assert.equal((await ask(client, { what: "collect" })).entries.length, Object.keys(COLLECT).length);
      },
      { timeoutMs: 10_000, message: "the service did not catch up with the buckets" },
    );

    // launch() gives the browser a new empty profile of its own and removes it on close().
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: 15_000,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    page = await browser.newPage({ viewport: { width: 1040, height: 620 } });
    page.setDefaultTimeout(10_000);
    page.on("pageerror", (err) => pageErrors.push(err.message));
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    await fleet?.killAll();
    await client?.close().catch(() => undefined);
    await server?.stop();
  });

  const rowText = (key: string): Promise<string[]> =>
    page.locator(`#nodes tr[data-key="${key}"] td`).allTextContents();

  test("the page loads the snapshot: the seat's holder, a row per node and module, the collections and the keys out of shape", async () => {
    const res = await page.goto(`${base}/`, { waitUntil: "load" });
    assert.equal(res?.status(), 200);
    assert.equal(await page.title(), "mesh-provisioner");
    await page.waitForSelector('#conn.live');
    await page.waitForSelector('#nodes tr[data-key="edge-1.web"]');

    assert.ok(serve.instance, "the service logged its instance");
    const seat = await page.locator("#seat").textContent();
    assert.ok(seat?.includes(serve.instance), `the seat names the holder's instance: ${seat}`);
    assert.ok(seat?.includes(`pid ${serve.pid}`), seat ?? "");
    assert.match((await page.locator("#counts").textContent()) ?? "", /registry 13 @13/);

    assert.deepEqual(await rowText("edge-1.web"), ["edge-1", "web", "4", "config, environment, port, secret", "applied"]);
    assert.deepEqual(await rowText("edge-2.web"), ["edge-2", "web", "2", "config, port", "not applied"]);
    assert.deepEqual(await rowText("core-1.metrics"), ["core-1", "metrics", "2", "port, tracing (unanswered)", "not applied"]);
    assert.equal(await page.locator("#nodes tbody tr").count(), 5, "edge-1.web, edge-1.api, edge-2.web, core-1.postgres, core-1.metrics");

    const collections = await page.locator("#collections tbody tr").evaluateAll((rows) =>
      rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)),
    );
    assert.deepEqual(collections, [
      ["shell", "api, web", "edge-1, edge-2"],
      ["ssh keys", "api, postgres", "core-1, edge-1"],
    ]);

    const oos = await page.locator("#oos tbody tr td").allTextContents();
    assert.equal(oos[0], "needs");
    assert.equal(oos[1], OUT_OF_SHAPE);
    assert.match(oos[2] ?? "", /needs keys have 4 tokens/);
    assert.deepEqual(pageErrors, []);
  });

  test("a need put after the page loaded appears without a reload, then turns applied when its module is applied", async () => {
    // A mark on the page's window survives only if the page is not reloaded.
    await page.evaluate("window.__notReloaded = true");
    await kvs.needs.put("edge-3.metrics.port.scrape", JSON.stringify({ protocol: "tcp" }));
    await page.waitForSelector('#nodes tr[data-key="edge-3.metrics"]', { timeout: 10_000 });
    assert.deepEqual(await rowText("edge-3.metrics"), ["edge-3", "metrics", "1", "port", "not applied"]);

    await kvs.applied.put("edge-3.metrics", JSON.stringify({ at: "2024-05-01T12:01:10Z", revision: 1 }));
    await page.waitForSelector('#nodes tr[data-key="edge-3.metrics"] td.ok', { timeout: 10_000 });
    assert.equal((await rowText("edge-3.metrics"))[4], "applied");

    // A delete and a key out of shape reach the page too.
    await kvs.needs.delete("edge-1.api.consumers.orders");
    await eventually(async () => assert.equal((await rowText("edge-1.api"))[2], "1"), { timeoutMs: 10_000 });
    await kvs.applied.put("edge-3.metrics.v2", "{}");
    await page.waitForFunction('document.querySelector("#oos tbody").textContent.includes("edge-3.metrics.v2")', undefined, {
      timeout: 10_000,
    });

    assert.equal(await page.evaluate("window.__notReloaded === true"), true, "no reload happened");
    assert.equal(await page.locator("#conn").textContent(), "live");
    assert.deepEqual(pageErrors, []);
  });

  test("a screenshot of the dashboard is a real picture (docs/dashboard.png with UPDATE_SCREENSHOT=1)", async () => {
    // Back to the mesh as described: the extra out-of-shape key goes away again.
    await kvs.applied.delete("edge-3.metrics.v2");
    await page.waitForFunction('!document.querySelector("#oos tbody").textContent.includes("edge-3.metrics.v2")', undefined, {
      timeout: 10_000,
    });
    mkdirSync(join(SCREENSHOT, ".."), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    assert.ok(statSync(SCREENSHOT).size > 10_000, "a real picture, not an empty page");
  });

  test(
    "after its event stream reconnects (the service restarted) the page shows the changes made while it was cut off",
    async () => {
      const address = new URL(base).host; // 127.0.0.1:PORT
      await serve.stop("SIGTERM");
      await page.waitForSelector("#conn.dead");
      await kvs.needs.put("edge-4.cache.config.size", JSON.stringify({ mb: 256 }));
      // The same address again: the page's EventSource reconnects to it by itself.
      serve = fleet.spawn({ args: ["--http", address], name: "serve-dashboard-2" });
      await serve.waitForLine((l) => l.msg.startsWith("all projections synced"), 15_000, "all projections synced");
      await page.waitForSelector("#conn.live", { timeout: 15_000 });
      await page.waitForSelector('#nodes tr[data-key="edge-4.cache"]', { timeout: 5_000 });
    },
  );
});
