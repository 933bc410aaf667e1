/**
 * `mesh-provisioner verify`: compare what a running instance answers with what
 * the buckets hold, and report every difference (exit 1 if any). The buckets
 * are read first; the verb is then asked at that revision (`minRevision`), so
 * a write landing in between shows as a difference only if it persists over
 * a few attempts.
 */
import { connectionConfig, verifyAttempts, type ConnectionFlags } from "../config.js";
import { connectBus } from "../connect.js";
import { createLogger } from "../log.js";
import { WHATS } from "mesh-provisioner-client/keys";
import { ProvisionerClient } from "mesh-provisioner-client";
import { compareAnswers, type Difference } from "../verify/compare.js";
import { readBuckets } from "../verify/read-buckets.js";
import { failAndExit } from "./fail.js";
import { renderTable } from "./table.js";

export async function verifyCommand(flags: ConnectionFlags & { json?: boolean; attempts?: string }): Promise<void> {
  let differences: Difference[] = [];
  try {
    const attempts = verifyAttempts(flags.attempts);
    const cfg = connectionConfig(flags);
    const nc = await connectBus(cfg, "mesh-provisioner verify");
    const log = createLogger({ level: "error" });
    try {
      for (let i = 0; i < attempts; i++) {
        const truth = await readBuckets(nc, log, { inboxPrefix: cfg.inboxPrefix, jsDomain: cfg.jsDomain });
        differences = [];
        for (const w of WHATS) {
          const answer = await new ProvisionerClient(nc).get({ what: w, minRevision: truth[w].revision });
          differences.push(...compareAnswers(w, answer, truth[w]));
        }
        if (differences.length === 0) break;
      }
    } finally {
      await nc.close();
    }
  } catch (err) {
    failAndExit(err);
  }
  if (flags.json) process.stdout.write(`${JSON.stringify({ differences }, null, 2)}\n`);
  else if (differences.length === 0) process.stdout.write("verify: the projections equal the buckets\n");
  else {
    const rows = [["WHAT", "KEY", "PROBLEM"], ...differences.map((d) => [d.what, d.key, d.problem])];
    process.stdout.write(`verify: ${differences.length} difference${differences.length === 1 ? "" : "s"}\n${renderTable(rows)}\n`);
  }
  process.exit(differences.length === 0 ? 0 : 1);
}
