/**
 * The soak's values: JSON of exactly the size asked for, whatever the key and
 * however many times it was overwritten. Every field that varies is written
 * at a fixed width and the rest is padding, so an update replaces a value
 * with one of the same length: memory that grows under such churn cannot be
 * bigger values, only something the service keeps.
 */

/** Key numbers and put counts are written with this many digits (wider ones wrap). */
const INDEX_DIGITS = 7;
const SALT_DIGITS = 12;
const fixed = (n: number, digits: number): string => String(n % 10 ** digits).padStart(digits, "0");

const head = (i: number, salt: number): string =>
  `{"default":"value-${fixed(i, INDEX_DIGITS)}","rev":"${fixed(salt, SALT_DIGITS)}","note":"set by the soak","pad":"`;
const TAIL = `"}`;

/** The smallest size a value can have: the fields with no padding. */
export const MIN_VALUE_BYTES = head(0, 0).length + TAIL.length;

/** Key i's value after `salt` puts, exactly `bytes` long (ASCII, so bytes = characters). */
export function fixedSizeValue(i: number, salt: number, bytes: number): string {
  const h = head(i, salt);
  const pad = bytes - h.length - TAIL.length;
  if (!Number.isInteger(bytes) || pad < 0) throw new RangeError(`a soak value takes at least ${MIN_VALUE_BYTES} bytes, got ${bytes}`);
  return h + "x".repeat(pad) + TAIL;
}
