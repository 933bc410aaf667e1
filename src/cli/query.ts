/** `mesh-provisioner query <what>`: ask the verb, follow `next` to the end, print a table or the merged JSON. */
import { connectionConfig, type ConnectionFlags } from "../config.js";
import { connectBus } from "../connect.js";
import { isPlainToken, WHATS } from "mesh-provisioner-client/keys";
import { ProvisionerClient, type ClientScope, type ProvisionerRequest } from "mesh-provisioner-client";
import { instances } from "mesh-provisioner-client";
import { describeSeat } from "mesh-provisioner-client/protocol/stats.js";
import { failAndExit } from "./fail.js";
import { COMMAND_DEFAULTS } from "../defaults.js";
import { formatAnswer } from "./table.js";
import { Failure } from "../failure.js";

export type QueryFlags = ConnectionFlags & {
  node?: string;
  module?: string;
  contributor?: string;
  collection?: string;
  limit?: string;
  minRevision?: string;
  json?: boolean;
  timeout?: string;
  scope?: string;
};

/** `--scope`: mesh, needs, or node:<N>. */
export function parseScope(text: string | undefined): ClientScope {
  if (text === undefined || text === "mesh") return "mesh";
  if (text === "needs") return "needs";
  const node = text.startsWith("node:") ? text.slice("node:".length) : undefined;
  if (node !== undefined && isPlainToken(node)) return { node };
  throw new Failure("CONFIG", `--scope ${JSON.stringify(text)}: use mesh, needs (a provider's grant) or node:<N> (node N's grant, N a plain token)`);
}

export async function queryCommand(what: string, flags: QueryFlags): Promise<void> {
  try {
    if (!(WHATS as readonly string[]).includes(what)) {
      throw new Failure("CONFIG", `"${what}" is not something to query: use one of ${WHATS.join(", ")}`);
    }
    const request: Record<string, unknown> = { what };
    for (const f of ["node", "module", "contributor", "collection"] as const) {
      if (flags[f] !== undefined) request[f] = flags[f];
    }
    if (flags.minRevision !== undefined) request["minRevision"] = Number(flags.minRevision);
    const scope = parseScope(flags.scope);
    const nc = await connectBus(connectionConfig(flags), "mesh-provisioner query");
    try {
      const client = new ProvisionerClient(nc, {
        timeoutMs: Number(flags.timeout || COMMAND_DEFAULTS.timeout),
        pageSize: flags.limit !== undefined ? Number(flags.limit) : undefined,
        scope,
      });
      const answer = await client.get(request as ProvisionerRequest);
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
