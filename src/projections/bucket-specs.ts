/**
 * The four buckets' specs as projections see them: shapes, narrowings and
 * indexes (their names are keys/buckets.ts's). Node buckets' values are
 * opaque (JSON when they parse); registry values must be JSON objects naming
 * a known kind (the kinds are given: the table they come from is the
 * reconciler's, above the projections).
 */
import { BUCKETS, parseAppliedKey, parseCollectKey, parseNeedsKey, parseRegistryKey, type What } from "mesh-provisioner-client/keys";
import type { Shape } from "mesh-provisioner-client/keys";
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { encodeName } from "mesh-provisioner-client/keys";
import { StringHead, TokenHead } from "./store/entry-head.js";
import { entryHead, utf8, type BucketSpec, type Decoded, type KeyRange, type Rejected } from "./store/spec.js";

/** The fields of a key that is known to be in shape (an entry's own key). */
function fieldsOf<F extends Record<string, string>>(parse: (key: string) => Shape<F>): (key: string) => F {
  return (key) => {
    const s = parse(key);
    if (!s.ok) throw new ProvisionerError("INTERNAL", `an entry's key "${key}" is out of shape: ${s.reason}`);
    return s.fields;
  };
}

/** The range of keys whose leading tokens are the narrowed values, up to the first token not narrowed. */
function leadingRange(
  order: readonly string[],
  filters: Readonly<Record<string, string>>,
  encode: (field: string, v: string) => string = (_f, v) => v,
): KeyRange | undefined {
  const tokens: string[] = [];
  for (const f of order) {
    const v = filters[f];
    if (v === undefined) break;
    tokens.push(encode(f, v));
  }
  if (tokens.length === 0) return undefined;
  const covered = order.slice(0, tokens.length);
  const joined = tokens.join(".");
  return tokens.length === order.length ? { exact: joined, covered } : { prefix: `${joined}.`, covered };
}

export const needsSpec: BucketSpec = {
  what: "needs",
  bucket: BUCKETS.needs,
  filters: ["node", "module"],
  indexes: [],
  fieldsOf: fieldsOf(parseNeedsKey),
  kindOf(key) {
    // <node>.<module>.<kind>.<name>: the token after the second dot.
    const b = key.indexOf(".", key.indexOf(".") + 1);
    return key.slice(b + 1, key.indexOf(".", b + 1));
  },
  decode(key): Decoded | Rejected {
    const s = parseNeedsKey(key);
    return s.ok ? { ok: true, fields: s.fields } : s;
  },
  head: new TokenHead(["node", "module", "kind", "name"]),
  countedTokens: 3,
  // node, then module: the key's first two of four tokens.
  leadingField: "node",
  range: (filters) => leadingRange(["node", "module", "kind", "name"], filters),
};

export const appliedSpec: BucketSpec = {
  what: "applied",
  bucket: BUCKETS.applied,
  filters: ["node", "module"],
  indexes: [],
  fieldsOf: fieldsOf(parseAppliedKey),
  decode(key): Decoded | Rejected {
    const s = parseAppliedKey(key);
    return s.ok ? { ok: true, fields: s.fields } : s;
  },
  head: new TokenHead(["node", "module"]),
  countedTokens: 2,
  leadingField: "node",
  range: (filters) => leadingRange(["node", "module"], filters),
};

export const collectSpec: BucketSpec = {
  what: "collect",
  bucket: BUCKETS.collect,
  filters: ["node", "collection", "contributor"],
  indexes: ["collection", "contributor"],
  fieldsOf: fieldsOf(parseCollectKey),
  decode(key): Decoded | Rejected {
    const s = parseCollectKey(key);
    return s.ok ? { ok: true, fields: s.fields } : s;
  },
  countedTokens: 2,
  // The collection's name is decoded from its =hex token and written as a JSON string.
  head: new StringHead((key, f) =>
    entryHead(
      key,
      [
        ["node", f["node"] as string],
        ["collection", f["collection"] as string],
        ["contributor", f["contributor"] as string],
      ],
      "collection",
    ),
  ),
  // A collection is narrowed by its name and written in the key =hex escaped.
  leadingField: "node",
  range: (filters) => leadingRange(["node", "collection", "contributor"], filters, (f, v) => (f === "collection" ? encodeName(v) : v)),
};

/** The registry's spec: a key is in shape when it is one of `knownKinds` (the compiled table's, passed in by the composition root). */
export function registrySpec(knownKinds: ReadonlySet<string>): BucketSpec {
  return {
    what: "registry",
    bucket: BUCKETS.registry,
    filters: [],
    indexes: [],
    fieldsOf: (key) => ({ kind: key }),
    decode(key, value, revision): Decoded | Rejected {
      const s = parseRegistryKey(key, knownKinds);
      if (!s.ok) return s;
      const text = utf8.decode(value);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return { ok: false, reason: `registry value of "${key}" is not JSON; the seat holder rewrites it from the compiled table`, readable: s.fields };
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        return {
          ok: false,
          reason: `registry value of "${key}" is not a JSON object; the seat holder rewrites it from the compiled table`,
          readable: s.fields,
        };
      }
      // A registry entry is the registry value itself, with the value and its
      // revision beside it. Its `kind` is always its key in the bucket, even
      // when a stored value says otherwise (the reconciler rewrites such a value).
      const json = JSON.stringify({ ...(parsed as Record<string, unknown>), kind: key, value: parsed, revision });
      return { ok: true, fields: s.fields, json, value: parsed };
    },
  };
}

export function specFor(what: What, knownKinds: ReadonlySet<string>): BucketSpec {
  switch (what) {
    case "registry":
      return registrySpec(knownKinds);
    case "needs":
      return needsSpec;
    case "applied":
      return appliedSpec;
    case "collect":
      return collectSpec;
  }
}
