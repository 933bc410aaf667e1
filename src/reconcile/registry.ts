/**
 * The registry, compiled into the program: for each kind of placeholder, which
 * domain (module) answers it and where a node's client finds its values.
 * Data, not logic. The reconciler keeps the bucket `mesh-provisioner_registry`
 * equal to this table (docs/protocol.md, "The registry").
 *
 * A value names either a `bucket` and the `key` shape of its entries, or a
 * `verb` asked on request/reply. Secrets never live in a bucket. Kinds read as
 * collections also name their `collection` (`collected` names none: its
 * placeholder does).
 */
import { knownKinds } from "mesh-provisioner-client/keys";

export interface RegistryValue {
  readonly kind: string;
  readonly module: string;
  readonly bucket?: string;
  readonly key?: string;
  readonly verb?: string;
  readonly collection?: string;
}

const collect = (kind: string, collection?: string): RegistryValue => ({
  kind,
  module: "mesh-provisioner",
  bucket: "mesh-provisioner_collect",
  key: "<node>.<collection>.<contributor>",
  ...(collection === undefined ? {} : { collection }),
});

/** Placement namespaces are answered by the controller's assignments mirror. */
const placement = (kind: string): RegistryValue => ({
  kind,
  module: "mesh-controller",
  bucket: "mesh-controller_assignments",
  key: "<node>.<module>",
});

export const REGISTRY_TABLE: readonly RegistryValue[] = Object.freeze([
  { kind: "config", module: "mesh-config", bucket: "mesh-config_values", key: "<node>.<module>.<name>" },
  { kind: "secret", module: "mesh-vault", verb: "mesh-vault.secret" },
  {
    kind: "bound",
    module: "<provider-module>",
    bucket: "<provider-module>_bound",
    key: "<node>.<module>.<provision>[.<local>]",
  },
  { kind: "consumers", module: "mesh-vault", verb: "mesh-vault.consumers" },
  collect("collected"),
  collect("shell", "shell"),
  collect("environment", "environment"),
  collect("contribution", "contribution"),
  placement("dir"),
  placement("access"),
  placement("port"),
  placement("seat"),
  placement("machine"),
]);

/** The table as the reconciler's desired state: kind -> value. */
export function desiredRegistry(table: readonly RegistryValue[] = REGISTRY_TABLE): Map<string, RegistryValue> {
  return new Map(table.map((v) => [v.kind, v]));
}

export const KNOWN_KINDS: ReadonlySet<string> = knownKinds(REGISTRY_TABLE);
