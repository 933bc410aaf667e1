/**
 * A few keys of each bucket: in shape, out of shape, JSON and not, needs
 * answered and not. The schema tests build replies and feed events from
 * them, and `scripts/write-vectors.mjs` writes the shared vectors from them,
 * so both stand on one data set.
 */
import { REGISTRY_TABLE } from "../../src/reconcile/registry.js";
import { encodeName, type What } from "mesh-provisioner-client/keys";

export const SAMPLE_PUTS: Record<What, [string, unknown][]> = {
  registry: [
    ...REGISTRY_TABLE.filter((v) => v.kind !== "port").map((v): [string, unknown] => [v.kind, v]),
    ["nosuchkind", { kind: "nosuchkind", module: "x" }],
    ["config", { kind: "config", module: "mesh-config", bucket: "mesh-config_values", key: "<node>.<module>.<name>", extra: ["x".repeat(400)] }],
    ["dir", "not json"],
  ],
  needs: [
    ["n1.web.config.port", { default: 8080 }],
    ["n1.web.port.http", 8080],
    ["n1.web.weird.x", "not json"],
    ["n1.web.config", "{}"],
    ["n2.db.secret.password", null],
    ["n2.db.config.empty", ""],
    ["n2.db.config.big", { text: "x".repeat(400) }],
    ["n3.a b.config.x", "1"],
    ["n1.web.config.quoted", '"x"'],
  ],
  applied: [
    ["n1.web", { version: 3, at: "2024-01-01T00:00:00Z" }],
    ["n1.db", [1, "two", { three: 3 }]],
    ["n2", "x"],
    ["n2.web", "plain text"],
    ["n3.big", "x".repeat(400)],
  ],
  collect: [
    [`n1.${encodeName("shell:zsh:normal")}.web`, { line: "export A=1" }],
    [`n1.${encodeName("café")}.db`, "ünïcode text"],
    ["n1.shell=3azsh.web", "lower-case hex"],
    ["n2.shell.web", true],
    ["n3.big.web", ["x".repeat(400)]],
  ],
};
