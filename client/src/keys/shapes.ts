/**
 * The key shape of each bucket (docs/protocol.md, "Keys"). A key either fits its bucket's shape
 * and yields its fields, or is out of shape with a reason a person can act on and
 * the tokens that were still readable (used to decide whether an out-of-shape key
 * contradicts a narrowing filter of the verb).
 *
 * Runs for every key of a bucket: one split, one test per token, no other regex.
 */

import { ProvisionerError } from "../protocol/errors.js";
import { decodeName } from "./hex.js";
import { TOKEN_CHARS, TOKEN_RE } from "../protocol/token.js";
import type { What } from "../protocol/what.js";

export type NeedsFields = { node: string; module: string; kind: string; name: string };
export type AppliedFields = { node: string; module: string };
export type CollectFields = { node: string; collection: string /* decoded name */; contributor: string };
export type RegistryFields = { kind: string };

export type Shape<F> = { ok: true; fields: F } | { ok: false; reason: string; readable: Partial<Record<string, string>> };

type Readable = Partial<Record<string, string>>;
type Out = { ok: false; reason: string; readable: Readable };

const NEEDS = ["node", "module", "kind", "name"] as const;
const APPLIED = ["node", "module"] as const;
const COLLECT = ["node", "collection", "contributor"] as const;

const NEEDS_COUNT = "needs keys have 4 tokens: <node>.<module>.<kind>.<name>";
const APPLIED_COUNT = "applied keys have 2 tokens: <node>.<module>";
const COLLECT_COUNT = "collect keys have 3 tokens: <node>.<collection>.<contributor>";
const REGISTRY_COUNT = "registry keys have 1 token: <kind>";

/** 1 for the char codes of a plain token: A-Z a-z 0-9 - _ / = */
const PLAIN = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_/=") PLAIN[ch.charCodeAt(0)] = 1;
const DOT = 0x2e;

/** Dot positions found by scan() (parsing is synchronous, so one buffer serves all). */
const DOTS = new Int32Array(4);

/**
 * Fast path for the common, well-formed key: one pass over its characters, true
 * when it has exactly `dots` dots, no empty token and only plain characters (the
 * dot positions are then in DOTS). Anything else goes the slow, explaining way.
 */
function scan(key: string, dots: number): boolean {
  const n = key.length;
  let d = 0;
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const c = key.charCodeAt(i);
    if (c === DOT) {
      if (i === prev + 1 || d === dots) return false;
      DOTS[d++] = i;
      prev = i;
    } else if (c >= 128 || PLAIN[c] === 0) {
      return false;
    }
  }
  return d === dots && prev !== n - 1;
}

/** Why token number i (0-based) of a key, meant to be `field`, is not a plain token. */
function plainProblem(i: number, field: string, t: string): string {
  if (t.length === 0) return `token ${i + 1} (${field}) is empty`;
  return `token ${i + 1} (${field}) ${JSON.stringify(t)} is not a plain token (only ${TOKEN_CHARS} are allowed)`;
}

/**
 * The readable tokens of an out-of-shape key, by position. With too few tokens the
 * leading ones are taken at their place. With too many, only the node is: the extra
 * dots could belong to any later token (e.g. an unescaped collection name), so a
 * later field is not known, and claiming it could hide the key from a filter it
 * matches. The node is safe: a node's grant is `<node>.>`.
 */
function readableOf(tokens: readonly string[], fields: readonly string[], collectionAt = -1): Readable {
  const r: Readable = {};
  const upto = tokens.length <= fields.length ? tokens.length : 1;
  for (let i = 0; i < upto; i++) {
    const t = tokens[i]!;
    const field = fields[i]!;
    if (i === collectionAt) {
      const d = decodeName(t);
      if (d.ok) r[field] = d.name;
    } else if (TOKEN_RE.test(t)) {
      r[field] = t;
    }
  }
  return r;
}

/** null when all tokens are plain, else the out-of-shape answer naming every bad token. */
function checkPlain(tokens: readonly string[], fields: readonly string[]): Out | null {
  let problems: string[] | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!TOKEN_RE.test(t)) (problems ??= []).push(plainProblem(i, fields[i]!, t));
  }
  if (problems === undefined) return null;
  return { ok: false, reason: problems.join("; "), readable: readableOf(tokens, fields) };
}

/** `<node>.<module>.<kind>.<name>`, all plain tokens. */
export function parseNeedsKey(key: string): Shape<NeedsFields> {
  if (scan(key, 3)) {
    const a = DOTS[0]!;
    const b = DOTS[1]!;
    const c = DOTS[2]!;
    return {
      ok: true,
      fields: { node: key.slice(0, a), module: key.slice(a + 1, b), kind: key.slice(b + 1, c), name: key.slice(c + 1) },
    };
  }
  const t = key.split(".");
  if (t.length !== 4) return { ok: false, reason: NEEDS_COUNT, readable: readableOf(t, NEEDS) };
  const bad = checkPlain(t, NEEDS);
  if (bad !== null) return bad;
  return { ok: true, fields: { node: t[0]!, module: t[1]!, kind: t[2]!, name: t[3]! } };
}

/** `<node>.<module>`, both plain tokens. */
export function parseAppliedKey(key: string): Shape<AppliedFields> {
  if (scan(key, 1)) return { ok: true, fields: { node: key.slice(0, DOTS[0]!), module: key.slice(DOTS[0]! + 1) } };
  const t = key.split(".");
  if (t.length !== 2) return { ok: false, reason: APPLIED_COUNT, readable: readableOf(t, APPLIED) };
  const bad = checkPlain(t, APPLIED);
  if (bad !== null) return bad;
  return { ok: true, fields: { node: t[0]!, module: t[1]! } };
}

/** `<node>.<collection>.<contributor>`; the collection is =hex escaped and read back by its name. */
export function parseCollectKey(key: string): Shape<CollectFields> {
  // An escaped collection is made of plain characters too, so the scan applies.
  if (scan(key, 2)) {
    const a = DOTS[0]!;
    const b = DOTS[1]!;
    const d = decodeName(key.slice(a + 1, b));
    if (d.ok) return { ok: true, fields: { node: key.slice(0, a), collection: d.name, contributor: key.slice(b + 1) } };
  }
  const t = key.split(".");
  if (t.length !== 3) return { ok: false, reason: COLLECT_COUNT, readable: readableOf(t, COLLECT, 1) };
  const [node, escaped, contributor] = t as [string, string, string];
  const d = decodeName(escaped);
  if (TOKEN_RE.test(node) && d.ok && TOKEN_RE.test(contributor)) {
    return { ok: true, fields: { node, collection: d.name, contributor } };
  }
  const problems: string[] = [];
  if (!TOKEN_RE.test(node)) problems.push(plainProblem(0, "node", node));
  if (!d.ok) {
    problems.push(escaped.length === 0 ? "token 2 (collection) is empty" : `token 2 (collection) ${JSON.stringify(escaped)}: ${d.reason}`);
  }
  if (!TOKEN_RE.test(contributor)) problems.push(plainProblem(2, "contributor", contributor));
  return { ok: false, reason: problems.join("; "), readable: readableOf(t, COLLECT, 1) };
}

/** Text listing the known kinds, cached per set (the table is fixed for a run). */
const knownText = new WeakMap<ReadonlySet<string>, string>();
function known(kinds: ReadonlySet<string>): string {
  let s = knownText.get(kinds);
  if (s === undefined) {
    s = kinds.size === 0 ? "none" : [...kinds].join(", ");
    knownText.set(kinds, s);
  }
  return s;
}

/** `<kind>`: one plain token that is a kind of the compiled table. */
export function parseRegistryKey(key: string, knownKinds: ReadonlySet<string>): Shape<RegistryFields> {
  if (knownKinds.has(key) && TOKEN_RE.test(key)) return { ok: true, fields: { kind: key } };
  if (key.includes(".")) return { ok: false, reason: REGISTRY_COUNT, readable: {} };
  if (!TOKEN_RE.test(key)) {
    const reason = key.length === 0 ? "registry key is empty" : `registry key ${JSON.stringify(key)} is not a plain token (only ${TOKEN_CHARS} are allowed)`;
    return { ok: false, reason, readable: {} };
  }
  return {
    ok: false,
    reason: `registry key ${JSON.stringify(key)} is not a known kind (known: ${known(knownKinds)})`,
    readable: { kind: key },
  };
}

/** The shape check of the bucket `what`. */
export function parseKey(what: What, key: string, knownKinds: ReadonlySet<string>): Shape<Record<string, string>> {
  switch (what) {
    case "needs":
      return parseNeedsKey(key);
    case "applied":
      return parseAppliedKey(key);
    case "collect":
      return parseCollectKey(key);
    case "registry":
      return parseRegistryKey(key, knownKinds);
    default:
      throw new ProvisionerError("BAD_REQUEST", `unknown bucket ${JSON.stringify(what satisfies never)}`);
  }
}

/**
 * Whether a key's readable tokens contradict a narrowing: some filter names a
 * field the key reads as another value. A key out of shape belongs to an
 * answer (and a watch) when they do not.
 */
export function readableContradicts(readable: Readonly<Partial<Record<string, string>>>, filters: Iterable<readonly [string, string]>): boolean {
  for (const [f, v] of filters) {
    const seen = readable[f];
    if (seen !== undefined && seen !== v) return true;
  }
  return false;
}
