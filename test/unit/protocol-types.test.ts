/**
 * The client's hand-written types (`src/protocol/messages.ts`, which load no
 * zod) and the types the schemas give (`src/protocol/schemas.ts`, which
 * validate what the service sends) describe the same messages: whatever the
 * schemas accept, the client's types type. The client's types are the looser
 * of the two (one entry type with `value` or `valueTooLarge`, where the
 * schemas have an entry and a too-large entry), so the check is one way. A
 * field the schemas add or make required that the client's types lack or
 * type otherwise fails the build, and with it this test.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type * as Hand from "mesh-provisioner-client/protocol/messages.js";
import type * as Zod from "../../src/schemas/schemas.js";
import type { What } from "mesh-provisioner-client/protocol/what.js";

/** Compiles only where every A is a B. */
type Is<A, B> = [A] extends [B] ? true : false;
type EachWhat<F extends Record<What, boolean>> = F[What];
const agree = <T extends true>(...checks: T[]): number => checks.length;

test("every message the schemas accept is typed by the client's types: entries, out-of-shape keys, pages and feed events", () => {
  const checked = agree<
    | EachWhat<{ [W in What]: Is<Zod.ReplyEntry<W>, Hand.EntryOf[W]> }>
    | Is<Zod.OutOfShape, Hand.OutOfShape>
    | EachWhat<{ [W in What]: Is<Zod.Reply<W>, Hand.Page<W>> }>
    | EachWhat<{ [W in What]: Is<Zod.FeedEvent<W>, Hand.FeedEvent<W>> }>
  >(true, true, true, true);
  assert.equal(checked, 4);
});
