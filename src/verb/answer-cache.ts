/**
 * What the verb keeps between requests, behind one class: request bodies
 * already validated, and answers already built, each let in by a doorkeeper
 * on its second sight (pure: no I/O).
 *
 * An answer is kept with the revisions it was built at and served again only
 * at those revisions, so what a cache hit answers is what a fresh build
 * would. A kept answer's bytes are its own buffer, never written again once
 * built, so it may be published any number of times, whenever the client
 * copies it. A kept page never says `stale`: whether its projection has
 * heard from its stream lately is a fact of the moment it is sent, written in
 * then (`stale-reply.ts`), so a hit says stale exactly when a fresh build would.
 */
import { LRUCache } from "lru-cache";
import { answerHash, Doorkeeper } from "./doorkeeper.js";
import { hashKey } from "../projections/store/key-table.js";
import { parseRequest, requestKey, withinScope, type VerbRequest } from "./request.js";
import { MESH_SCOPE, scopeSubject, type VerbScope } from "mesh-provisioner-client/protocol/scope.js";

/** Answers kept for repeated requests, at most: enough for every node of a large mesh asking its usual question. */
export const ANSWER_CACHE_ENTRIES = 2048;
/** The bytes of answers kept, at most: the cache's memory is bounded whatever size the answers are. */
export const ANSWER_CACHE_BYTES = 16 * 1024 * 1024;
/**
 * Request bodies kept parsed: more than a mesh of 10,000 nodes asks for. An
 * LRU smaller than the set of bodies asked in turn misses every time (each
 * ask evicts the body asked next). Only bodies of at most 1024 characters
 * are kept, so its memory is bounded whatever is asked.
 */
const PARSED_ENTRIES = 16384;
const MAX_KEPT_BODY = 1024;

/** A request validated, with its canonical text (the answers' key) and that text's hash. */
export interface KnownRequest {
  readonly req: VerbRequest;
  readonly key: string;
  readonly keyHash: number;
}

/** An answer kept, with the revisions it was built at: its projection's, and the registry's for needs (0 otherwise). */
interface CachedAnswer {
  readonly bytes: Uint8Array;
  readonly revision: number;
  readonly registryRevision: number;
}

export class AnswerCache {
  /**
   * Answers by request: keyed by the request's canonical text alone, the same
   * string each time (its hash computed once); a key with the revisions in it
   * would be a new string on every request, hashed again on every lookup.
   */
  private readonly answers = new LRUCache<string, CachedAnswer>({
    max: ANSWER_CACHE_ENTRIES,
    maxSize: ANSWER_CACHE_BYTES,
    // An answer larger than the whole budget is simply not kept.
    sizeCalculation: (a) => Math.max(1, a.bytes.length),
  });
  /** Lets an answer in only on its request's second ask at the same revisions (see Doorkeeper). */
  private readonly answerDoor = new Doorkeeper(8 * ANSWER_CACHE_ENTRIES);
  private readonly parsed = new LRUCache<string, KnownRequest>({ max: PARSED_ENTRIES });
  /**
   * Lets a body in only on its second sight, so that bodies asked once (a
   * page of a paged read, with its own `after`; each node's first ask after a
   * restart) cost no insertion and push out none of the bodies nodes send
   * again and again.
   */
  private readonly parsedDoor = new Doorkeeper(8 * PARSED_ENTRIES);
  private readonly onHit: () => void;

  /** `onHit` is called for each answer served from the cache. */
  constructor(opts: { readonly onHit?: () => void } = {}) {
    this.onHit = opts.onHit ?? (() => undefined);
  }

  /**
   * The request `text` holds as asked on the subject of `scope`, validated
   * and narrowed to the scope (throws a ProvisionerError where it is not
   * valid, or reaches past the scope). Requests of every scope that ask the
   * same thing share their answers: `{"what":"needs"}` on node n1's subject
   * is `{"what":"needs","node":"n1"}` on the mesh's.
   */
  request(text: string, scope: VerbScope = MESH_SCOPE): KnownRequest {
    // A body with minRevision is all but unique (a new revision each time): keeping it would only evict the bodies that repeat.
    const keep = text.length <= MAX_KEPT_BODY && !text.includes("minRevision");
    const asked = scope.kind === "mesh" ? text : `${scopeSubject(scope)}\n${text}`;
    const seen = keep ? this.parsed.get(asked) : undefined;
    if (seen !== undefined) return seen;
    const req = withinScope(parseRequest(text), scope);
    const key = requestKey(req);
    const known = { req, key, keyHash: hashKey(key) };
    if (keep && this.parsedDoor.seenBefore(hashKey(asked))) this.parsed.set(asked, known);
    return known;
  }

  /**
   * The answer to `known` at `revision` (and the registry's
   * `registryRevision`, 0 unless needs): the one kept, where it was built at
   * those revisions, else `build`'s. A built answer is kept from its
   * request's second ask, unless it asks for a `minRevision` (a node asking
   * after its own write: all but unique).
   */
  answer(known: KnownRequest, revision: number, registryRevision: number, build: () => Uint8Array): Uint8Array {
    const { key } = known;
    const hit = this.answers.get(key);
    if (hit !== undefined) {
      if (hit.revision === revision && hit.registryRevision === registryRevision) {
        this.onHit();
        return hit.bytes;
      }
      this.answers.delete(key);
    }
    const bytes = build();
    if (known.req.minRevision === undefined && this.answerDoor.seenBefore(answerHash(known.keyHash, revision, registryRevision))) {
      this.answers.set(key, { bytes, revision, registryRevision });
    }
    return bytes;
  }
}
