/** `mesh-provisioner query <what>`: ask the verb, follow `next` to the end, print a table or the merged JSON. */
import { connectionConfig } from "../config.js";
import { connectBus } from "../connect.js";
import { ProvisionerClient, type ProvisionerRequest } from "mesh-provisioner-client";
import { instances } from "mesh-provisioner-client";
import { describeSeat } from "mesh-provisioner-client/protocol/stats.js";
import { failAndExit } from "./fail.js";
import { formatAnswer } from "./table.js";
import { queryPlan, type QueryFlags } from "./query-request.js";

export async function queryCommand(what: string, flags: QueryFlags): Promise<void> {
  try {
    // Everything the flags say is checked before connecting: a bad flag is a bad flag whether or not a server answers.
    const plan = queryPlan(what, flags);
    const nc = await connectBus(connectionConfig(flags), "mesh-provisioner query");
    try {
      const client = new ProvisionerClient(nc, { timeoutMs: plan.timeoutMs, pageSize: plan.pageSize, scope: plan.scope });
      const answer = await client.get(plan.request as ProvisionerRequest);
      if (flags.json) process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      else {
        const seat = await instances(nc).then(describeSeat, (err: unknown) => `seat: unknown (${(err as Error).message})`);
        process.stdout.write(`${formatAnswer(answer)}\n${seat}\n`);
      }
    } finally {
      await nc.close();
    }
  } catch (err) {
    failAndExit(err);
  }
}
