/**
 * The record of a chaos run: everything the actors did and saw, every fault,
 * the seat's and the registry's histories, and the final state read at the
 * end. The checks (checks.ts) read nothing else, and the whole record is
 * written out as JSON, so a failed run can be studied afterwards.
 *
 * Times are milliseconds since the run started (`startedAt`), on this
 * process's clock; the seat's and registry's `at` are the server's own
 * timestamps of the messages, on the same machine's clock, moved to the
 * same origin.
 */
import type { FaultKind, NodeBucket, PlannedFault } from "./schedule.js";

/** One write by a node's client (with its own grant) to one of its keys. */
export interface WriteOp {
  readonly id: number;
  readonly node: string;
  readonly bucket: NodeBucket;
  readonly key: string;
  readonly op: "put" | "delete";
  /** Unique per put, written inside the value: `{"op":"<token>",…}`. */
  readonly token?: string;
  /** Keys written out of their bucket's shape on purpose. */
  readonly shape: "in" | "out";
  readonly flood?: true;
  /** The value's size in bytes (puts). */
  readonly bytes?: number;
  readonly sentAt: number;
  doneAt?: number;
  /** ack: the stream stored it at `seq`; failed: refused, not stored; indeterminate: no answer, may be stored or not. */
  outcome?: "ack" | "failed" | "indeterminate";
  seq?: number;
  error?: string;
}

/** An entry as a reply or a view holds it: its key, revision and the token of the write it shows. */
export interface SeenEntry {
  readonly key: string;
  readonly revision: number;
  /** The `op` token inside the value; null when the value carries none. */
  readonly token: string | null;
}

export type ReadStatus = number | "timeout" | "no-responders" | "error";

/** One request to the verb. */
export interface ReadRecord {
  readonly id: number;
  readonly reader: string;
  /** Valid requests: a node bucket and node; malformed ones carry `malformed` (the body sent). */
  readonly what?: NodeBucket;
  readonly node?: string;
  readonly minRevision?: number;
  readonly malformed?: string;
  /** Injected by which fault (a malformed burst). */
  readonly fault?: number;
  readonly sentAt: number;
  doneAt?: number;
  status?: ReadStatus;
  revision?: number;
  entries?: SeenEntry[];
  error?: string;
  /** The reply's `stale` (a site's reads): its projection had heard nothing from its stream for a while. */
  stale?: { since: string; silentMs: number; revision: number };
}

export interface HolderRecord {
  readonly instance: string;
  readonly pid: number;
  readonly since: string;
}

/** A change of the seat's key as the run's watch saw it. */
export interface SeatRecord {
  readonly revision: number;
  /** The server's timestamp of the message. */
  readonly at: number;
  readonly seenAt: number;
  readonly op: string;
  readonly holder?: HolderRecord;
}

/** A message of the registry's stream. */
export interface RegistryWrite {
  readonly seq: number;
  readonly at: number;
  readonly kind: string;
  readonly op: string;
  /** The service's writer header (Mesh-Provisioner-Instance). */
  readonly writer?: string;
  /** Written by the run itself (a registry-drift fault). */
  readonly tamper?: boolean;
}

export interface FaultRecord {
  readonly id: number;
  readonly kind: FaultKind;
  readonly plannedAt: number;
  startedAt?: number;
  healedAt?: number;
  /** What it hit, once resolved: an instance, a server, a consumer, a node. */
  target?: string;
  /** The serve instance's slot it hit (kill-holder, pause-instance, cut-connection). */
  slot?: string;
  detail?: Record<string, unknown>;
  /** Why it was not injected (nothing to hit). */
  skipped?: string;
  /** When every instance was ready again after the fault was healed. */
  recoveredAt?: number;
}

/** A serve instance's slot (A, B, C) changing between ready, not ready and unable to answer. */
export interface AvailabilityChange {
  readonly slot: string;
  readonly at: number;
  /** ready: /readyz 200; not-ready: answers, but catching up; down: no answer, disconnected, or never synced. */
  readonly state: "ready" | "not-ready" | "down";
}

export interface ProcessRecord {
  readonly slot: string;
  readonly pid: number;
  instance?: string;
  readonly spawnedAt: number;
  syncedAt?: number;
  exitedAt?: number;
  code?: number | null;
  signal?: string | null;
  /** Why it ended: the fault that killed it, or "run end"; absent when it ended on its own. */
  endedBy?: string;
  /** Its log (the first lines, then the last ones when long): `<ms> <level> <msg> <fields>`. */
  log?: string[];
}

/** A log line of the flood detection. */
export interface FloodLine {
  readonly slot: string;
  readonly instance?: string;
  readonly at: number;
  readonly msg: string;
  readonly fields: Record<string, unknown>;
}

/** A feed follower's view at the end. */
export interface FollowerFinal {
  readonly name: string;
  readonly user: string;
  readonly what: string;
  readonly node?: string;
  readonly synced: boolean;
  readonly revision: number;
  readonly snapshots: number;
  /** When each snapshot was in, and the view's revision then. */
  readonly snapshotLog: { at: number; revision: number }[];
  readonly errors: number;
  readonly entries: SeenEntry[];
  readonly outOfShape: string[];
}

/** A bucket read directly (its stream) at the end: the keys it holds now. */
export interface BucketFinal {
  readonly what: string;
  readonly lastSeq: number;
  readonly entries: (SeenEntry & { readonly value: string })[];
}

/** One instance's own projections at the end (its SIGUSR2 dump). */
export interface InstanceFinal {
  readonly slot: string;
  readonly instance: string;
  readonly pid: number;
  readonly buckets: Record<string, { revision: number; entries: (SeenEntry & { value?: unknown })[]; outOfShape: string[] }>;
}

export interface CheckResult {
  readonly name: string;
  readonly status: "pass" | "fail" | "not available";
  readonly summary: string;
  /** The first violating events (at most a few dozen). */
  readonly violations: string[];
}

export interface RunMeta {
  readonly seed: number;
  readonly minutes: number;
  readonly startedAt: string;
  readonly ttlMs: number;
  readonly nodes: readonly string[];
  readonly floodNode: string;
  readonly command: string;
  readonly plan: readonly PlannedFault[];
  /** Whether the service has the flood detection (serve --help lists --bucket-max-bytes). */
  floodFeature?: boolean;
  /** The --max-value-bytes the instances were given (with the flood feature). */
  maxValueBytes?: number;
  chaosStartedAt?: number;
  chaosEndedAt?: number;
  quietEndedAt?: number;
}

export class History {
  private readonly origin = Date.now();
  readonly writes: WriteOp[] = [];
  readonly reads: ReadRecord[] = [];
  readonly seat: SeatRecord[] = [];
  readonly registry: RegistryWrite[] = [];
  readonly faults: FaultRecord[] = [];
  readonly availability: AvailabilityChange[] = [];
  readonly processes: ProcessRecord[] = [];
  readonly flood: FloodLine[] = [];
  readonly notes: { at: number; note: string }[] = [];
  followers: FollowerFinal[] = [];
  buckets: BucketFinal[] = [];
  instances: InstanceFinal[] = [];
  checks: CheckResult[] = [];
  private nextWrite = 0;
  private nextRead = 0;

  readonly meta: RunMeta;

  constructor(meta: Omit<RunMeta, "startedAt">) {
    this.meta = { ...meta, startedAt: new Date(this.origin).toISOString() };
  }

  /** Milliseconds since the run started. */
  now(): number {
    return Date.now() - this.origin;
  }

  /** An epoch time (a server timestamp) on the run's origin. */
  fromEpoch(ms: number): number {
    return ms - this.origin;
  }

  get originEpoch(): number {
    return this.origin;
  }

  write(w: Omit<WriteOp, "id" | "sentAt">): WriteOp {
    const op: WriteOp = { id: this.nextWrite++, sentAt: this.now(), ...w };
    this.writes.push(op);
    return op;
  }

  read(r: Omit<ReadRecord, "id" | "sentAt">): ReadRecord {
    const rec: ReadRecord = { id: this.nextRead++, sentAt: this.now(), ...r };
    this.reads.push(rec);
    return rec;
  }

  note(note: string): void {
    this.notes.push({ at: this.now(), note });
  }

  toJSON(): Record<string, unknown> {
    return {
      meta: this.meta,
      checks: this.checks,
      faults: this.faults,
      processes: this.processes,
      availability: this.availability,
      seat: this.seat,
      registry: this.registry,
      flood: this.flood,
      notes: this.notes,
      writes: this.writes,
      reads: this.reads,
      followers: this.followers,
      buckets: this.buckets,
      instances: this.instances,
    };
  }
}

/** The `op` token of a value (parsed JSON or text), or null. */
export function tokenOf(value: unknown): string | null {
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (typeof v === "object" && v !== null && typeof (v as { op?: unknown }).op === "string") return (v as { op: string }).op;
  return null;
}
