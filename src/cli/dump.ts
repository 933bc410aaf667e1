/** `mesh-provisioner dump [--out FILE]`: one JSON document of what a running instance holds, read through the verb. */
import { writeFile } from "node:fs/promises";
import { connectionConfig, type ConnectionFlags } from "../config.js";
import { connectBus } from "../connect.js";
import { WHATS, type What } from "mesh-provisioner-client/keys";
import { ProvisionerClient, type Answer } from "mesh-provisioner-client";
import { instances } from "mesh-provisioner-client";
import { dumpDocument } from "../dump/document.js";
import { failAndExit } from "./fail.js";
import { cannotWrite, checkWritable } from "./out-file.js";

export async function dumpCommand(flags: ConnectionFlags & { out?: string }): Promise<void> {
  try {
    if (flags.out !== undefined) checkWritable("--out", flags.out);
    const nc = await connectBus(connectionConfig(flags), "mesh-provisioner dump");
    const tty = process.stderr.isTTY === true;
    try {
      const client = new ProvisionerClient(nc);
      const answers = {} as Record<What, Answer>;
      for (const w of WHATS) {
        let n = 0;
        answers[w] = await client.get(
          { what: w },
          {
            onPage: (page) => {
              n += page.entries.length;
              if (tty) process.stderr.write(`\r${w}: ${n} entries…`);
            },
          },
        );
        if (tty) process.stderr.write(`\r${w}: ${n} entries, revision ${answers[w].revision}\n`);
      }
      const seat = await instances(nc).catch(() => []);
      const holder = seat.find((i) => i.isHolder)?.holder ?? seat.find((i) => i.holder)?.holder ?? null;
      const text = `${JSON.stringify(dumpDocument(answers, holder, `verb at ${nc.getServer()}`), null, 1)}\n`;
      if (flags.out) {
        const out = flags.out;
        await writeFile(out, text).catch((err: unknown) => {
          throw cannotWrite("--out", out, err);
        });
        process.stderr.write(`dump written to ${flags.out}\n`);
      } else process.stdout.write(text);
    } finally {
      await nc.close();
    }
  } catch (err) {
    failAndExit(err);
  }
}
