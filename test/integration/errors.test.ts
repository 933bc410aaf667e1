import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { NatsConnection } from "@nats-io/nats-core";
import { connectTo, startStack, type Reply, type Stack } from "../helpers/stack.js";
import { askRaw, put, until } from "../helpers/verb-pages.js";
import { startNatsServer, type RunningNatsServer } from "../../src/embedded/nats-server.js";
import { memoryLogger } from "../../src/log.js";
import { WHATS, type What } from "mesh-provisioner-client/keys";
import { Projection } from "../../src/projections/projection.js";
import { specFor } from "../../src/projections/bucket-specs.js";
import { KNOWN_KINDS } from "../../src/reconcile/registry.js";
import { VerbService } from "../../src/verb/service.js";

const MAX_WAIT_MS = 300;

/** Requests the verb must refuse with a 400, by what makes them wrong. */
const BAD_REQUESTS: readonly (readonly [string, string])[] = [
  ["not JSON", "{not json"],
  ["a JSON array", "[]"],
  ["a JSON array of a request", '[{"what":"needs"}]'],
  ["a JSON string", '"needs"'],
  ["JSON null", "null"],
  ["a JSON number", "42"],
  ["an unknown field", '{"what":"needs","nodes":"n1"}'],
  ["an unknown what", '{"what":"everything"}'],
  ["what not a string", '{"what":1}'],
  ["module on collect", '{"what":"collect","module":"web"}'],
  ["node on registry", '{"what":"registry","node":"n1"}'],
  ["node on the default registry", '{"node":"n1"}'],
  ["collection on needs", '{"what":"needs","collection":"shell"}'],
  ["contributor on applied", '{"what":"applied","contributor":"c1"}'],
  ["node *", '{"what":"needs","node":"*"}'],
  ["node >", '{"what":"needs","node":">"}'],
  ["node a.b", '{"what":"needs","node":"a.b"}'],
  ["node a b", '{"what":"needs","node":"a b"}'],
  ["node empty", '{"what":"needs","node":""}'],
  ["module *", '{"what":"applied","module":"*"}'],
  ["module >", '{"what":"needs","node":"n1","module":">"}'],
  ["contributor a.b", '{"what":"collect","contributor":"a.b"}'],
  ["contributor empty", '{"what":"collect","contributor":""}'],
  ["collection empty", '{"what":"collect","collection":""}'],
  ["node a number", '{"what":"needs","node":5}'],
  ["node null", '{"what":"needs","node":null}'],
  ["node an array", '{"what":"needs","node":["n1"]}'],
  ["collection a number", '{"what":"collect","collection":1}'],
  ["limit 0", '{"what":"needs","limit":0}'],
  ["limit 1.5", '{"what":"needs","limit":1.5}'],
  ["limit huge", '{"what":"needs","limit":1000000000}'],
  ["limit negative", '{"what":"needs","limit":-1}'],
  ["limit a string", '{"what":"needs","limit":"10"}'],
  ["after a number", '{"what":"needs","after":5}'],
  ["minRevision negative", '{"what":"needs","minRevision":-1}'],
  ["minRevision 1.5", '{"what":"needs","minRevision":1.5}'],
  ["minRevision a string", '{"what":"needs","minRevision":"1"}'],
  ["a 20 KiB body", JSON.stringify({ what: "needs", after: "a".repeat(20 * 1024) })],
  ["a 20 KiB body of spaces around a good request", `${" ".repeat(20 * 1024)}{"what":"needs"}`],
];

function assertServiceError(r: Reply, code: number, what: string): void {
  assert.equal(r.status, code, `${what}: status (body ${JSON.stringify(r.body)})`);
  assert.equal(r.headers["Nats-Service-Error-Code"], String(code), `${what}: Nats-Service-Error-Code`);
  assert.ok((r.headers["Nats-Service-Error"] ?? "").length > 0, `${what}: Nats-Service-Error is set`);
  assert.deepEqual(Object.keys(r.body), ["error"], `${what}: body ${JSON.stringify(r.body)}`);
  assert.deepEqual(Object.keys(r.body.error).sort(), ["code", "message"], what);
  assert.equal(r.body.error.code, code, what);
  assert.equal(typeof r.body.error.message, "string", what);
  assert.ok(r.body.error.message.length > 0, `${what}: the message says what is wrong`);
}

describe("the verb's errors", () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({ maxWaitMs: MAX_WAIT_MS });
  });
  after(async () => {
    await stack?.stop();
  });

  const good = async (): Promise<void> => {
    const r = await stack.ask({ what: "registry" }, 5000);
    assert.equal(r.status, 200);
    assert.equal(r.body.what, "registry");
  };

  for (const [why, body] of BAD_REQUESTS) {
    test(`400 for ${why}, and the next good request is answered`, async () => {
      const r = await stack.ask(body);
      assertServiceError(r, 400, why);
      await good();
    });
  }

  test("the 400 messages name what is wrong", async () => {
    const msg = async (body: string): Promise<string> => (await stack.ask(body)).body.error.message as string;
    assert.match(await msg("{not json"), /not JSON/);
    assert.match(await msg('{"what":"needs","nodes":"n1"}'), /nodes/);
    assert.match(await msg('{"what":"everything"}'), /what/);
    assert.match(await msg('{"what":"collect","module":"web"}'), /module/);
    assert.match(await msg('{"what":"needs","node":"*"}'), /node/);
    assert.match(await msg('{"what":"needs","limit":0}'), /limit/);
    assert.match(await msg(JSON.stringify({ what: "needs", after: "a".repeat(20 * 1024) })), /bytes/);
  });

  test("the bodies that are not errors: empty, blanks, {} and a collection that looks like a wildcard", async () => {
    for (const body of ["", "   ", "{}", "\n"]) {
      const r = await stack.ask(body);
      assert.equal(r.status, 200, JSON.stringify(body));
      assert.equal(r.body.what, "registry");
    }
    const r = await stack.ask({ what: "collect", collection: "*" });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.entries, []);
  });

  test("504 when minRevision is far ahead, after about the bounded wait", async () => {
    const started = Date.now();
    const r = await stack.ask({ what: "needs", minRevision: 1_000_000_000 });
    const took = Date.now() - started;
    assertServiceError(r, 504, "minRevision far ahead");
    assert.match(r.body.error.message, /1000000000/);
    assert.ok(took >= MAX_WAIT_MS - 50, `waited ${took} ms`);
    assert.ok(took < MAX_WAIT_MS + 2000, `waited ${took} ms`);
    await good();
  });

  test("a minRevision slightly ahead is answered (200) once a put lands during the wait, with the put's entry", async () => {
    const kv = await stack.kv("needs");
    const base = await stack.lastSeq("needs");
    const needs = stack.provisioner.projections.needs;
    const asked = stack.ask({ what: "needs", minRevision: base + 1 });
    // Put as soon as the request is waiting on the projection's revision.
    await until(() => (needs.revision$.observed ? true : undefined), 2000, "the request waiting for its revision");
    const rev = await put(kv, "n1.web.config.late", '{"late":true}');
    assert.equal(rev, base + 1);
    const r = await asked;
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.revision >= rev);
    const e = r.body.entries.find((x: { key: string }) => x.key === "n1.web.config.late");
    assert.deepEqual(e?.value, { late: true });
    assert.equal(e?.revision, rev);
  });

  test("a request waiting for its minRevision holds up no other request", async () => {
    const waiting = stack.ask({ what: "applied", minRevision: 1_000_000_000 });
    await until(() => (stack.provisioner.projections.applied.revision$.observed ? true : undefined), 2000, "the request waiting");
    const started = Date.now();
    await good();
    assert.ok(Date.now() - started < MAX_WAIT_MS, "answered while the other request waits");
    assert.equal((await waiting).status, 504);
  });

  test("error messages built from odd field names stay one valid header line and a JSON body", async () => {
    // Field names as JSON escapes in the body: CR LF, NUL, a tab, é, an emoji, and a 15 KiB name.
    for (const field of ["a\\r\\nb", "a\\u0000b", "a\\tb", "caf\\u00e9", "\\ud83d\\ude00", "x".repeat(15 * 1024)]) {
      const body = `{"what":"needs","${field}":1}`;
      const r = await stack.ask(body);
      assertServiceError(r, 400, `field ${field.slice(0, 20)}`);
      assert.ok(!/[\r\n]/.test(r.headers["Nats-Service-Error"] ?? ""), "no line break in the header");
      await good();
    }
  });

  test("minRevision already reached is answered at once", async () => {
    const r = await stack.ask({ what: "needs", minRevision: 0 });
    assert.equal(r.status, 200);
  });
});

describe("503 before the first sync", () => {
  let server: RunningNatsServer;
  let nc: NatsConnection;
  let verb: VerbService;
  let client: NatsConnection;

  before(async () => {
    // A server of its own, so no other instance of the queue group can answer for it.
    server = await startNatsServer();
    nc = await connectTo(server);
    client = await connectTo(server);
    const { log } = memoryLogger("debug");
    // Projections never fed by a watch: they never sync.
    const projections = Object.fromEntries(WHATS.map((w) => [w, new Projection(specFor(w, KNOWN_KINDS), log)])) as Record<What, Projection>;
    verb = new VerbService({ nc, projections, log, version: "0.0.0-test", maxWaitMs: 300 });
    await verb.start();
    await verb.join();
  });
  after(async () => {
    await verb?.stop();
    await nc?.close();
    await client?.close();
    await server?.stop();
  });

  for (const what of WHATS) {
    test(`asking for ${what} before its projection has synced is a 503 saying to retry`, async () => {
      const raw = await askRaw(client, { what });
      const r: Reply = {
        status: Number(raw.headers["Nats-Service-Error-Code"] ?? 200),
        body: JSON.parse(new TextDecoder().decode(raw.data)),
        bytes: raw.data.length,
        headers: raw.headers,
      };
      assertServiceError(r, 503, what);
      assert.match(r.body.error.message, /first sync/);
      assert.match(r.body.error.message, /retry/);
    });
  }

  test("a bad request is still a 400 before the sync (validation comes first)", async () => {
    const raw = await askRaw(client, "{not json");
    assert.equal(raw.headers["Nats-Service-Error-Code"], "400");
  });

  test("the service answers discovery while not synced", async () => {
    const m = await client.request("$SRV.PING.mesh-provisioner", "", { timeout: 5000 });
    assert.equal(m.json<{ name: string }>().name, "mesh-provisioner");
  });
});
