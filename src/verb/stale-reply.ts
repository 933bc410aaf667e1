/**
 * `stale` written into a page as it is sent (pure): the page's bytes, as
 * built and perhaps kept by the answer cache, are never changed; the reply is
 * a new buffer with `,"stale":{…}` after the page's `revision`, so a reader
 * finds it beside the revision it qualifies.
 */
import { ProvisionerError } from "mesh-provisioner-client/protocol/errors.js";
import { staleJson, type Staleness } from "../projections/staleness.js";

/**
 * The most bytes `,"stale":{…}` takes: its names, an ISO time (24), and two
 * integers of at most 16 digits. A page is built this much under the
 * largest reply, so a stale one still fits.
 */
export const STALE_ROOM = 128;

const ENTRIES = Buffer.from(`,"entries":[`);

/** `page` (a verb's page: `{"what":…,"revision":N,"entries":[…`) with `stale` after its revision. */
export function withStale(page: Uint8Array, stale: Staleness): Buffer {
  const bytes = Buffer.from(page.buffer, page.byteOffset, page.byteLength);
  // The head is `{"what":"<what>","revision":<n>`: the first `,"entries":[` ends it (a what and a number hold no quote or comma).
  const at = bytes.subarray(0, 64).indexOf(ENTRIES);
  const field = `,"stale":${staleJson(stale)}`;
  // Never sent without it: an answer that cannot say it may be stale is an error that does (the caller's).
  if (at < 0) throw new ProvisionerError("INTERNAL", "the page's head was not found to say it may be stale");
  const out = Buffer.allocUnsafe(bytes.length + Buffer.byteLength(field));
  bytes.copy(out, 0, 0, at);
  const n = out.write(field, at);
  bytes.copy(out, at + n, at);
  return out;
}
