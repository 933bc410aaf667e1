/**
 * `npm start -- --demo`: a small sample mesh put into the node buckets of the
 * private server, so that every part of the dashboard has something to show.
 * Four nodes, a few modules each; needs of answered kinds and one kind the
 * registry does not answer; some modules applied and some not; two
 * collections (one whose name is =hex escaped in its keys); one needs key out
 * of shape. Puts overwrite, so running it again changes nothing but revisions.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { jetStreamAccess } from "../streams/jetstream-access.js";
import { BUCKETS } from "mesh-provisioner-client/keys";
import { encodeName } from "mesh-provisioner-client/keys";
import type { Logger } from "../log.js";

const SSH_KEYS = encodeName("ssh keys"); // "ssh=20keys"

/** The sample mesh, key -> value, as it is written to each bucket. */
export const DEMO_MESH = Object.freeze({
  /** <node>.<module>.<kind>.<name> */
  needs: {
    "edge-1.web.config.listen": { default: ":443" },
    "edge-1.web.secret.tls-key": { length: 64 },
    "edge-1.web.port.https": { protocol: "tcp" },
    "edge-1.web.environment.LANG": { default: "C.UTF-8" },
    "edge-1.api.config.db-url": { default: "postgres://core-1/app" },
    "edge-1.api.consumers.orders": {},
    "edge-1.api.secret.api-token": { length: 32 },
    "edge-2.web.config.listen": { default: ":443" },
    "edge-2.web.port.https": { protocol: "tcp" },
    "edge-2.web.secret.tls-key": { length: 64 },
    "core-1.postgres.dir.data": { mode: "0700" },
    "core-1.postgres.secret.superuser": { length: 32 },
    "core-1.postgres.port.sql": { protocol: "tcp" },
    "core-1.metrics.port.scrape": { protocol: "tcp" },
    "core-1.metrics.tracing.endpoint": { default: "otel:4317" }, // a kind the registry does not answer
    "core-2.backup.dir.archive": { mode: "0750" },
    "core-2.backup.access.postgres": { role: "read" },
    "core-2.backup.config.schedule": { default: "daily" },
  } as Readonly<Record<string, unknown>>,
  /** <node>.<module>: edge-2.web and core-1.metrics have needs but nothing applied. */
  applied: {
    "edge-1.web": { at: "2024-05-01T12:00:00Z", revision: 7 },
    "edge-1.api": { at: "2024-05-01T12:00:03Z", revision: 5 },
    "core-1.postgres": { at: "2024-05-01T11:58:41Z", revision: 2 },
    "core-2.backup": { at: "2024-05-01T12:01:10Z", revision: 3 },
  } as Readonly<Record<string, unknown>>,
  /** <node>.<collection>.<contributor>, the collection =hex escaped; values are plain text. */
  collect: {
    "edge-1.shell.web": "export WEB_ROOT=/srv/www",
    "edge-2.shell.web": "export WEB_ROOT=/srv/www",
    "edge-1.shell.api": "export API_WORKERS=4",
    [`edge-1.${SSH_KEYS}.api`]: "ssh-ed25519 AAAAC3Nza… deploy@api",
    [`core-1.${SSH_KEYS}.postgres`]: "ssh-ed25519 AAAAC3Nza… backup@postgres",
    [`core-2.${SSH_KEYS}.backup`]: "ssh-ed25519 AAAAC3Nza… archive@backup",
  } as Readonly<Record<string, string>>,
  /** A needs key with three tokens instead of four: shown as out of shape. */
  outOfShape: { "edge-2.web.config": "three tokens" } as Readonly<Record<string, string>>,
});

/** Put the sample mesh into the needs, applied and collect buckets (the service creates them first). */
export async function seedDemoMesh(nc: NatsConnection, log?: Logger): Promise<void> {
  // The private server's own JetStream: it has no domain.
  const kvm = jetStreamAccess(nc).kvm();
  const needs = await kvm.open(BUCKETS.needs);
  const applied = await kvm.open(BUCKETS.applied);
  const collect = await kvm.open(BUCKETS.collect);
  for (const [k, v] of Object.entries(DEMO_MESH.needs)) await needs.put(k, JSON.stringify(v));
  for (const [k, v] of Object.entries(DEMO_MESH.outOfShape)) await needs.put(k, v);
  for (const [k, v] of Object.entries(DEMO_MESH.applied)) await applied.put(k, JSON.stringify(v));
  for (const [k, v] of Object.entries(DEMO_MESH.collect)) await collect.put(k, v);
  log?.info(
    {
      needs: Object.keys(DEMO_MESH.needs).length + Object.keys(DEMO_MESH.outOfShape).length,
      applied: Object.keys(DEMO_MESH.applied).length,
      collect: Object.keys(DEMO_MESH.collect).length,
    },
    "put the demo mesh into the node buckets",
  );
}
