/**
 * Feed followers (I/O): each keeps a view of a bucket (or one node's part of
 * it) current by the snapshot-then-feed recipe, which is exactly what the
 * typed client's `watch` does (a fresh snapshot after a reconnect, a slow
 * consumer or a change of the seat's holder). Each connects under a role's
 * own grant: the provider follows the whole needs bucket and the registry,
 * each node follows its own keys of one bucket. At the end the run compares
 * every view with its bucket read directly (checks.ts).
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { ProvisionerClient, type ClientScope, type Subscription, type View } from "mesh-provisioner-client";
import type { What } from "mesh-provisioner-client/keys";
import { tokenOf, type FollowerFinal } from "./history.js";

export interface FollowerSpec {
  readonly name: string;
  readonly user: string;
  readonly what: What;
  readonly node?: string;
  /** The grant its connection holds (the client's scope): a provider's or a node's. */
  readonly scope?: ClientScope;
}

export class Follower {
  private view: View | undefined;
  private sub: Subscription | undefined;
  private snapshots = 0;
  private readonly snapshotLog: { at: number; revision: number }[] = [];
  private errors = 0;
  private wasSynced = false;

  constructor(
    readonly spec: FollowerSpec,
    private readonly nc: NatsConnection,
    private readonly now: () => number,
  ) {}

  start(): void {
    const client = new ProvisionerClient(this.nc, { timeoutMs: 5000, ...(this.spec.scope === undefined ? {} : { scope: this.spec.scope }) });
    const request = this.spec.node === undefined ? { what: this.spec.what } : { what: this.spec.what, node: this.spec.node };
    this.sub = client.watch(request as never, { seatCheckMs: 2000, onError: () => void this.errors++ }).subscribe((v) => {
      this.view = v as View;
      if (v.synced && !this.wasSynced) {
        this.snapshots++;
        this.snapshotLog.push({ at: this.now(), revision: v.revision });
      }
      this.wasSynced = v.synced;
    });
  }

  /** The view now, copied (its maps are live). */
  final(): FollowerFinal {
    const v = this.view;
    const keyOf = (k: string, e: { kind?: unknown; key?: unknown }): string => (this.spec.what === "registry" ? String(e.kind ?? k) : String(e.key ?? k));
    const entries = v
      ? [...v.entries].map(([k, e]) => ({ key: keyOf(k, e as { kind?: unknown; key?: unknown }), revision: e.revision, token: tokenOf(e.value) }))
      : [];
    entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return {
      name: this.spec.name,
      user: this.spec.user,
      what: this.spec.what,
      ...(this.spec.node !== undefined ? { node: this.spec.node } : {}),
      synced: v?.synced ?? false,
      revision: v?.revision ?? 0,
      snapshots: this.snapshots,
      snapshotLog: [...this.snapshotLog],
      errors: this.errors,
      entries,
      outOfShape: v ? [...v.outOfShape.keys()].sort() : [],
    };
  }

  stop(): void {
    this.sub?.unsubscribe();
  }
}
