/** The verb's metrics, counted as each request is answered. */
import type { MetricsDef } from "./define.js";

/** Upper bounds of the verb's duration histogram, in seconds: an answer from memory takes well under a millisecond. */
export const VERB_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5];

/** Returns the hook the verb calls once per answered request. */
export function verbMetrics(def: MetricsDef): (status: number, what: string, seconds: number) => void {
  const requests = def.counter({
    name: "mesh_provisioner_verb_requests_total",
    help: "Verb requests answered, by what was asked and status",
    labelNames: ["what", "status"],
  });
  const errors = def.counter({
    name: "mesh_provisioner_verb_errors_total",
    help: "Verb requests answered with a service error, by status",
    labelNames: ["status"],
  });
  const duration = def.histogram({
    name: "mesh_provisioner_verb_duration_seconds",
    help: "Time from a verb request's arrival to its reply",
    labelNames: ["what"],
    buckets: VERB_BUCKETS,
  });
  return (status, what, seconds) => {
    requests.inc({ what, status: String(status) });
    if (status !== 200) errors.inc({ status: String(status) });
    duration.observe({ what }, seconds);
  };
}
