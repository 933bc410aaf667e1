/**
 * Writes the shared test vectors (vectors/*.json) from the TypeScript
 * implementation: the inputs are listed here, every expected value (an
 * escaped name, a reason, a request's refusal, a reply, a feed event, a
 * watch's view) is what the service's and the client's own code gives for
 * them. The TypeScript tests (test/unit/vectors.test.ts) and the Go tests
 * (go/) both read the files, so the two implementations cannot drift. A
 * refusal is held by its code (a ProvisionerError's, e.g. "E_BAD_REQUEST"),
 * not its message: each language words its messages in its own idiom. What
 * the service sends (a reply, an error reply, a key's reason out of shape in
 * a reply or a feed event) is kept as sent.
 *
 *   npm run build && node scripts/write-vectors.mjs
 *
 * Run it after changing a case below or the code that decides one; the unit
 * test fails while a committed file disagrees with the code.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = (p) => import(`${root}dist/src/${p}`);
/** The client package's compiled files (the protocol, the keys and the client). */
const client = (p) => import(`${root}client/dist/src/${p}`);

const { encodeName, decodeName, parseKey } = await client("keys/mod.js");
const { KNOWN_KINDS } = await dist("reconcile/registry.js");
const { parseRequest } = await dist("verb/request.js");
const { buildPage } = await dist("verb/answer.js");
const { isAnswered: answeredIn } = await client("keys/mod.js");
const { ProjectionStore } = await dist("projections/store/store.js");
const { appliedSpec, collectSpec, needsSpec, registrySpec } = await dist("projections/bucket-specs.js");
const { feedEvent } = await dist("feed/events.js");
const { feedSubject } = await client("protocol/subjects.js");
const { needsKey, appliedKey, collectKey, decodeCollection } = await client("keys.js");
const { covers, feedSubjects, filtersOf } = await client("narrowing.js");
const { ViewState } = await client("view-state.js");
const { PROTOCOL_VERSION } = await client("protocol/version.js");
const { MESH_SCOPE, NEEDS_SCOPE, nodeScope, requestSubject, scopedNode, scopeSubject } = await client("protocol/scope.js");

const files = {};
const header = (what) => ({
  $comment: `Shared test vectors (protocol version ${PROTOCOL_VERSION}): ${what}. Written by scripts/write-vectors.mjs from the TypeScript implementation; read by test/unit/vectors.test.ts and by the Go tests in go/. Do not edit by hand.`,
});
/** The code of the refusal fn throws (a ProvisionerError's, e.g. "E_BAD_REQUEST"), or undefined when it does not. */
const codeOf = (fn) => {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (typeof err.code !== "string") throw err;
    return err.code;
  }
};
/** The bytes of a JS string as Go holds them (WTF-8: a lone surrogate as its three bytes), in hex. */
function wtf8Hex(s) {
  const out = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  return Buffer.from(out).toString("hex");
}

// ---- =hex ----------------------------------------------------------------------------------

const names = [
  "shell", "shell:zsh:normal", "a.b", "x=y", "a b", "café", "🙂", "ssh keys", "ABCXYZabcxyz0189-_/",
  " ", "*>.", "\u0000\n\u007f", "é", "€", "😀", "\u{10FFFF}", "\uFFFF", "\uFEFFx", "=", "==", "a/b-c_d", "日本語", "tab\there", "\"quoted\"", "back\\slash",
];
const refused = [
  "", "shell=3azsh", "a=61", "x=", "x=C3", "shell:zsh", "a.b", "a b", "café", "x😀", "*", "=2", "=G0", "=3d", "=2F", "=2D", "=5F",
  "=C3=28", "=80", "=C0=80", "=C1=BF", "=E0=80=80", "=ED=A0=80", "=F0=80=80=80", "=F4=90=80=80", "=F5=80=80=80", "=FF", "=E2=82",
  "=F0=9F=99", "😀x=3a", "é=3a", "ab=", "a=3", "caf=c3=a9", "=61=62",
];
const unencodable = ["", "\uD800", "a\uDC00", "\uD83Dx", "x\uDE00\uD83D"];
files["hex.json"] = {
  ...header("the =hex escaping of collection names (docs/protocol.md, \"=hex\")"),
  valid: names.map((name) => ({ name, escaped: encodeName(name) })),
  invalid: refused.map((escaped) => {
    const d = decodeName(escaped);
    if (d.ok) throw new Error(`${escaped} decodes`);
    return { escaped, code: codeOf(() => decodeCollection(escaped)) };
  }),
  unencodable: unencodable.map((name) => ({ name, bytes: wtf8Hex(name), code: codeOf(() => encodeName(name)) })),
};
for (const v of files["hex.json"].valid) if (decodeName(v.escaped).name !== v.name) throw new Error(`round trip of ${v.name}`);

// ---- key shapes ----------------------------------------------------------------------------

const keys = {
  needs: [
    "n1.web.config.port", "n1.web.config", "n1.*", "n1.web.config.a.b", "n1..config.x", "n1.web config.x.y", "", ".", "n1", "n1.web.config.",
    "n1.a b.config.x", "n1.web.*.>", "n1.web.weird.x", "n1/x.mod-1.kind_2.name=3", "zz", "n1.café.config.x", "n1.web.config.x.y.z", "*.*.*.*",
  ],
  applied: ["n1.web", "n1.web.x", "n1.*", "n1", "n1.", ".web", "n2", "a b.web", "n1.web.", "n1.wéb", "n1.web.x.y"],
  collect: [
    "n1.shell=3Azsh=3Anormal.web", "n1.shell=3azsh.web", "n1.caf=C3=A9.db", "n1.shell.web", "n1.shell", "n1.shell:zsh.web", "n1..web", "n1.x=.web",
    "n1.a=61.web", "n1.shell.web.extra", "n1*.shell.web", "n1.shell.we b", "n1.=F0=9F=99=82.x", "n1.=C3.x", "", "n1.shell.", "*.shell=3azsh.*",
  ],
  registry: ["config", "secret", "nope", "", "a.b", "a b", "con*fig", "shell", "Config", "nosuchkind"],
};
const knownKinds = [...KNOWN_KINDS];
files["keys.json"] = {
  ...header("the key shape of each bucket, with the readable tokens of keys out of shape (docs/protocol.md, \"Keys\"), and the key builders of the clients"),
  knownKinds,
  shapes: Object.entries(keys).flatMap(([what, list]) =>
    list.map((key) => {
      const s = parseKey(what, key, KNOWN_KINDS);
      return s.ok ? { what, key, ok: true, fields: s.fields } : { what, key, ok: false, readable: s.readable };
    }),
  ),
  builders: [
    ["needsKey", ["n1", "web", "config", "port"]],
    ["needsKey", ["n1", "web.api", "config", "port"]],
    ["needsKey", ["n1", "web", "config", ""]],
    ["needsKey", ["n*", "web", "config", "port"]],
    ["needsKey", ["n1", "web", "con fig", "port"]],
    ["needsKey", ["n1", "wéb", "config", "port"]],
    ["needsKey", ["n1/a", "web=1", "config-2", "port_3"]],
    ["appliedKey", ["n1", "web"]],
    ["appliedKey", ["n*", "web"]],
    ["appliedKey", ["n1", ">"]],
    ["collectKey", ["n1", "ssh keys", "web"]],
    ["collectKey", ["n1", "shell:zsh:normal", "web"]],
    ["collectKey", ["n1", "", "web"]],
    ["collectKey", ["n1", "shell", "we.b"]],
    ["collectKey", ["n.1", "shell", "web"]],
    ["collectKey", ["n1", "café", "db"]],
  ].map(([fn, args]) => {
    const f = { needsKey, appliedKey, collectKey }[fn];
    const code = codeOf(() => f(...args));
    return code === undefined ? { fn, args, key: f(...args) } : { fn, args, code };
  }),
};
for (const s of files["keys.json"].shapes) if (!s.ok) for (const k of Object.keys(s.readable)) if (typeof s.readable[k] !== "string") throw new Error(k);

// ---- requests ------------------------------------------------------------------------------

const bodies = [
  "", "   ", "{}", '{"what":"registry"}', '{"what":"needs"}', '{"what":"needs","node":"n1"}', '{"what":"needs","node":"n1","module":"web"}',
  '{"what":"needs","node":"n1","minRevision":1234}', '{"what":"applied","node":"n1","module":"web"}', '{"what":"collect","collection":"shell:zsh:normal"}',
  '{"what":"collect","node":"n1","contributor":"web","collection":"ssh keys","limit":500,"after":"n1.shell=3Azsh=3Anormal.web","minRevision":0}',
  '{"what":"registry","limit":3,"after":"collected"}', '{"what":"needs","limit":100000}', '{"what":"needs","limit":1}',
  '{"what":"needs","node":"n1.*"}', '{"what":"needs","node":"*"}', '{"what":"needs","node":">"}', '{"what":"needs","node":"a b"}', '{"what":"needs","node":""}',
  '{"what":"needs","module":"w.eb"}', '{"what":"collect","contributor":"we*"}', '{"what":"collect","node":"n 1"}',
  '{"what":"needs","collection":"x"}', '{"what":"needs","contributor":"x"}', '{"what":"applied","collection":"x"}', '{"what":"registry","node":"n1"}',
  '{"node":"n1"}', '{"what":"registry","module":"web"}', '{"what":"collect","module":"web"}',
  '{"what":"nope"}', '{"what":"seat"}', '{"what":"needs","limit":0}', '{"what":"needs","limit":-1}', '{"what":"needs","limit":100001}',
  '{"what":"needs","minRevision":-1}', `{"what":"collect","collection":"${"x".repeat(1024)}"}`, `{"what":"collect","collection":"${"x".repeat(1025)}"}`,
  `{"what":"collect","collection":"${"é".repeat(1024)}"}`, `{"what":"collect","collection":"${"😀".repeat(512)}"}`, `{"what":"collect","collection":"${"😀".repeat(513)}"}`,
  `{"what":"collect","collection":"${"😀".repeat(1024)}"}`, `{"what":"collect","collection":"${"😀".repeat(1025)}"}`, `{"what":"needs","after":"${"😀".repeat(2049)}"}`,
  `{"what":"needs","after":"${"é".repeat(4096)}"}`, `{"what":"needs","after":"${"é".repeat(4097)}"}`,
  '{"what":"collect","collection":""}', `{"what":"needs","after":"${"k".repeat(4096)}"}`, `{"what":"needs","after":"${"k".repeat(4097)}"}`,
  '{"what":"needs","node":"*","module":"a b"}', '{"what":"needs","node":"*","limit":0,"minRevision":-2}', '{"what":"applied","node":"n1","collection":"x","contributor":"y"}',
  '{"wat":"needs"}', '{"what":"needs","wat":1,"wut":2}', "not json", "[1,2]", "null", "3", '"needs"', '{"what":1}', '{"what":"needs","node":1}',
  '{"what":"needs","limit":1.5}', '{"what":"needs","limit":"5"}', '{"what":"needs","node":null}', '{"what":"collect","collection":7}', '{"what":"needs","after":5}',
  '{"what":"needs","minRevision":1.5}', `{"what":"needs","after":"${"x".repeat(16400)}"}`,
];
files["requests.json"] = {
  ...header("the verb's request validation: which bodies are served, and the status and code of each refusal (docs/protocol.md, \"The request\")"),
  cases: bodies.map((body) => {
    try {
      const r = parseRequest(body);
      const parsed = { what: r.what, filters: r.filters };
      if (r.limit !== undefined) parsed.limit = r.limit;
      if (r.after !== undefined) parsed.after = r.after;
      if (r.minRevision !== undefined) parsed.minRevision = r.minRevision;
      return { body, ok: true, parsed };
    } catch (err) {
      return { body, ok: false, status: err.status, code: err.code };
    }
  }),
};

// ---- replies and feed events -----------------------------------------------------------------

const enc = new TextEncoder();
const bytes = (v) => enc.encode(typeof v === "string" ? v : JSON.stringify(v));
const SPECS = { registry: registrySpec(KNOWN_KINDS), needs: needsSpec, applied: appliedSpec, collect: collectSpec };
// The data set the schema tests build their replies from too.
const { SAMPLE_PUTS: PUTS } = await import(`${root}dist/test/helpers/sample-puts.js`);
const storeOf = (what) => {
  const store = new ProjectionStore(SPECS[what]);
  let rev = 0;
  for (const [key, value] of PUTS[what]) store.apply("PUT", key, ++rev, bytes(value));
  store.markSynced(rev);
  return store;
};
const stores = Object.fromEntries(Object.keys(PUTS).map((w) => [w, storeOf(w)]));
const isAnswered = (kind) => answeredIn(stores.registry, kind);
const replies = [];
const ask = (request, maxBytes = 1024 * 1024) => {
  const r = parseRequest(JSON.stringify(request));
  let after = r.after;
  for (;;) {
    const page = buildPage({ ...r, after }, { store: stores[r.what], isAnswered: r.what === "needs" ? isAnswered : undefined, maxBytes });
    const body = JSON.parse(page.body);
    replies.push({ request: after === undefined ? request : { ...request, after }, maxBytes, reply: body });
    if (body.next === undefined) return;
    after = body.next;
  }
};
for (const what of Object.keys(PUTS)) {
  ask({ what });
  ask({ what, limit: 1 });
  ask({ what }, 300);
  if (what !== "registry") ask({ what, node: "n1" });
}
ask({ what: "needs", node: "n1", module: "web" });
ask({ what: "collect", collection: "café" });
ask({ what: "collect", contributor: "web" });
const errors = ['{"what":"needs","node":"n1.*"}', '{"wat":"needs"}', '{"what":"needs","collection":"x"}', "not json"].map((body) => {
  try {
    parseRequest(body);
  } catch (err) {
    return { request: body, code: 400, headers: { "Nats-Service-Error-Code": "400", "Nats-Service-Error": err.message }, body: err.toReplyBody() };
  }
  throw new Error(`${body} is served`);
});
errors.push(
  ...[
    [503, "the needs projection has not finished its first sync; retry in a moment"],
    [504, "the needs projection did not reach revision 99 within 5000 ms (it is at 1)"],
    [500, "the answer could not be built"],
  ].map(([code, message]) => ({ request: null, code, headers: { "Nats-Service-Error-Code": String(code), "Nats-Service-Error": message }, body: { error: { code, message } } })),
);
files["replies.json"] = {
  ...header("replies of the verb, every page of each request as the service builds it from a small bucket, and error replies (docs/protocol.md, \"The reply\", \"Errors\")"),
  replies,
  errors,
};

const events = [];
for (const what of Object.keys(PUTS)) {
  const store = new ProjectionStore(SPECS[what]);
  const apply = (op, key, value) => {
    const c = store.apply(op, key, store.revision + 1, bytes(value));
    events.push({ subject: feedSubject(what, key), event: JSON.parse(feedEvent(what, c, what === "needs" ? isAnswered : undefined)) });
  };
  for (const [key, value] of PUTS[what]) apply("PUT", key, value);
  apply("DEL", PUTS[what][0][0], new Uint8Array());
  apply("DEL", PUTS[what][2][0], new Uint8Array());
}
files["feed-events.json"] = {
  ...header("feed events as the seat's holder publishes them, with their subjects (docs/protocol.md, \"The feed\")"),
  events,
};

// ---- narrowing and the watch's view ------------------------------------------------------------

const narrowing = [
  [{ what: "needs", node: "n1", module: "web" }, "n1.web.config.a", { key: "n1.web.config.a", node: "n1", module: "web", kind: "config", name: "a", value: 1, revision: 1 }],
  [{ what: "needs", node: "n1", module: "web" }, "n1.api.config.a", { key: "n1.api.config.a", node: "n1", module: "api", kind: "config", name: "a", value: 1, revision: 1 }],
  [{ what: "needs", node: "n1", module: "web" }, "n1.web.config"],
  [{ what: "needs", node: "n1", module: "web" }, "n2.web.config"],
  [{ what: "needs", node: "n1", module: "web" }, "n1.api.config.a"],
  [{ what: "needs", node: "n1" }, "n1"],
  [{ what: "needs", node: "n1" }, "zz"],
  [{ what: "needs", node: "n1" }, "n1*.x"],
  [{ what: "needs", node: "n1" }, "n1.web.config.a.b"],
  [{ what: "needs", module: "web" }, "n1.web.config.a.b"],
  [{ what: "needs", module: "web" }, "n1.api.config"],
  [{ what: "needs" }, "anything.at.all"],
  [{ what: "applied", node: "n1", module: "web" }, "n1.web"],
  [{ what: "applied", node: "n1", module: "web" }, "n1.db"],
  [{ what: "collect", collection: "ssh keys" }, "n1.ssh=20keys.web"],
  [{ what: "collect", collection: "ssh keys" }, "n1.shell.web"],
  [{ what: "collect", collection: "ssh keys" }, "n1.ssh=20keys"],
  [{ what: "collect", collection: "shell" }, "n1.shell=3azsh.web"],
  [{ what: "collect", contributor: "web" }, "n1.shell.db"],
  [{ what: "collect", contributor: "web" }, "n1.shell.web.x"],
  [{ what: "collect", node: "n1", contributor: "web" }, "n1.shell.web", { key: "n1.shell.web", node: "n1", collection: "shell", contributor: "web", value: true, revision: 4 }],
  [{ what: "registry" }, "nosuchkind"],
];
const subjectsOf = [{ what: "needs", node: "n1" }, { what: "needs" }, { what: "registry" }, { what: "collect", node: "n2", collection: "x" }, { what: "applied", module: "web" }];

const needsEntry = (key, revision, value = revision) => {
  const [node, module, kind, name] = key.split(".");
  return { key, node, module, kind, name, value, revision };
};
const put = (key, revision, value) => ({ what: "needs", op: "put", key, revision, entry: needsEntry(key, revision, value) });
const del = (key, revision) => ({ what: "needs", op: "delete", key, revision });
const oos = (key, revision) => ({ what: "needs", op: "put", key, revision, outOfShape: { key, reason: parseKey("needs", key, KNOWN_KINDS).reason } });
const scenarios = [
  {
    name: "events above the snapshot apply; the ones at or below it do not",
    request: { what: "needs", node: "n1" },
    snapshot: { revision: 10, entries: [needsEntry("n1.web.config.a", 3), needsEntry("n1.web.config.b", 9)], outOfShape: [] },
    lowest: 10,
    held: [put("n1.web.config.a", 3), put("n1.web.config.b", 9), put("n1.web.config.c", 11)],
    events: [put("n1.web.config.a", 12), del("n1.web.config.b", 13)],
  },
  {
    name: "a duplicate event (the same revision twice) and an older one change nothing",
    request: { what: "needs", node: "n1" },
    snapshot: { revision: 5, entries: [needsEntry("n1.web.config.a", 5)], outOfShape: [] },
    lowest: 5,
    held: [],
    events: [put("n1.web.config.a", 7), put("n1.web.config.a", 7, "again"), put("n1.web.config.a", 6, "older"), put("n1.web.config.b", 8)],
  },
  {
    name: "pages answered at different revisions: events above the lowest page apply, each only where newer than the key's",
    request: { what: "needs", node: "n1" },
    snapshot: { revision: 20, entries: [needsEntry("n1.a.config.x", 14), needsEntry("n1.z.config.x", 19)], outOfShape: [] },
    lowest: 15,
    held: [put("n1.a.config.x", 16), put("n1.z.config.x", 17), put("n1.z.config.x", 19), del("n1.m.config.x", 18)],
    events: [put("n1.z.config.x", 21)],
  },
  {
    name: "a key out of shape comes and goes; a put in shape moves it back to the entries",
    request: { what: "needs", node: "n1" },
    snapshot: { revision: 3, entries: [], outOfShape: [{ key: "n1.web", reason: "needs keys have 4 tokens: <node>.<module>.<kind>.<name>" }] },
    lowest: 3,
    held: [],
    events: [del("n1.web", 4), del("n1.web", 5), oos("n1.web.config", 6), put("n1.web.config.x", 7), oos("n1.web.config.x.y", 8), del("n1.web.config", 9)],
  },
  {
    name: "events the request does not cover are dropped before the view sees them",
    request: { what: "needs", node: "n1", module: "web" },
    snapshot: { revision: 2, entries: [needsEntry("n1.web.config.a", 2)], outOfShape: [] },
    lowest: 2,
    held: [],
    events: [put("n1.api.config.a", 3), put("n2.web.config.a", 4), oos("n2.x", 5), oos("zz", 6), put("n1.web.config.b", 7), del("n1.api.config.a", 8)],
  },
  {
    name: "a delete, then the key again: held while the snapshot was taken",
    request: { what: "needs" },
    snapshot: { revision: 30, entries: [needsEntry("n1.web.config.a", 29)], outOfShape: [] },
    lowest: 28,
    held: [del("n1.web.config.a", 31), put("n1.web.config.a", 32), put("n2.web.config.a", 27)],
    events: [],
  },
];
files["views.json"] = {
  ...header("what a request covers, which feed subjects carry it, and a watch's view: a snapshot, events held while it was taken, events after (docs/protocol.md, \"Staying current\")"),
  covers: narrowing.map(([request, key, entry]) => ({
    request,
    key,
    ...(entry === undefined ? {} : { entry }),
    covered: covers(request.what, filtersOf(request), { key, entry }),
  })),
  subjects: subjectsOf.map((request) => ({ request, subjects: feedSubjects(request.what, filtersOf(request)) })),
  scenarios: scenarios.map((s) => {
    const what = s.request.what;
    const filters = filtersOf(s.request);
    const state = new ViewState(what);
    state.beginSnapshot();
    for (const ev of s.held) if (covers(what, filters, ev)) state.apply(ev);
    if (!state.endSnapshot({ what, ...s.snapshot }, s.lowest)) throw new Error(s.name);
    for (const ev of s.events) if (covers(what, filters, ev)) state.apply(ev);
    const v = state.view();
    return {
      ...s,
      expect: {
        revision: v.revision,
        synced: v.synced,
        entries: Object.fromEntries([...v.entries].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, e]) => [k, { revision: e.revision, value: e.value }])),
        outOfShape: [...v.outOfShape.keys()].sort(),
      },
    };
  }),
};

// ---- scopes.json: which verb subject a client of each scope asks on, and what the service answers there ----
const scopeOf = (s) => (s === "mesh" ? MESH_SCOPE : s === "needs" ? NEEDS_SCOPE : nodeScope(s.node));
const scopes = ["mesh", "needs", { node: "n1" }];
const asked = [
  { what: "registry" },
  { what: "needs" },
  { what: "needs", node: "n1" },
  { what: "needs", node: "n2" },
  { what: "applied" },
  { what: "applied", node: "n1" },
  { what: "applied", node: "n2" },
  { what: "collect" },
  { what: "collect", node: "n1" },
  { what: "collect", node: "n2" },
];
const statusOf = (fn) => {
  try {
    return { status: 200, node: fn() ?? null };
  } catch (err) {
    return { status: err.status, code: err.code };
  }
};
files["scopes.json"] = {
  ...header(
    "the verb's read scopes (docs/protocol.md, \"Who may read what\"): the subject each scope answers on (`subject`), the subject a client of that scope asks a request on (`asks`), and what the service does with the request there: 200 with the node it is narrowed to (null: every node), or 403 and its code",
  ),
  subjects: scopes.map((scope) => ({ scope, subject: scopeSubject(scopeOf(scope)) })),
  cases: scopes.flatMap((scope) =>
    asked.map((request) => ({
      scope,
      request,
      asks: requestSubject(scopeOf(scope), request.node),
      ...statusOf(() => scopedNode(scopeOf(scope), request.what, request.node)),
    })),
  ),
};

for (const [name, doc] of Object.entries(files)) writeFileSync(`${root}vectors/${name}`, `${JSON.stringify(doc, null, 1)}\n`);
console.log(`wrote ${Object.keys(files).map((f) => `vectors/${f}`).join(", ")}`);
