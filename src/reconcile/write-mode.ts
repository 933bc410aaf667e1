/**
 * How the registry is written on a given nats-server (pure).
 *
 * From 2.12.0 every write is a compare-and-set on the revision the diff saw
 * (`Nats-Expected-Last-Subject-Sequence`): a holder whose view is stale
 * (paused past its lease, or an older release still running during a
 * rollout) has its write refused instead of putting its table over a newer
 * one, and the next reconcile diffs again. Before 2.12.0 a compare-and-set
 * racing another write of the same key on a clustered stream can leave the
 * replicas numbering the stream differently (the fixes landed in 2.10.19,
 * 2.11.0 and 2.12.0; docs/servers.md), so the writes are plain, fenced by
 * the seat alone.
 */

/** The first nats-server release on which the registry's writes are compare-and-sets. */
export const CONDITIONAL_WRITES_SINCE = "2.12.0";

/** `major.minor.patch` of a nats-server version (`2.12.1`, `v2.15.2`, `2.12.0-RC.3`); undefined where it is not one. */
export function parseServerVersion(version: string | undefined): readonly [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version ?? "");
  return m === null ? undefined : [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** Whether `version` is `min` or later; false where `version` cannot be read. A pre-release counts as its release. */
export function versionAtLeast(version: string | undefined, min: string): boolean {
  const v = parseServerVersion(version);
  const m = parseServerVersion(min);
  if (v === undefined || m === undefined) return false;
  for (let i = 0; i < 3; i++) if (v[i] !== m[i]) return (v[i] as number) > (m[i] as number);
  return true;
}

/** Whether the registry's writes are compare-and-sets on a server of this version. */
export function conditionalRegistryWrites(serverVersion: string | undefined): boolean {
  return versionAtLeast(serverVersion, CONDITIONAL_WRITES_SINCE);
}
