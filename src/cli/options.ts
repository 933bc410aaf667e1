/**
 * Options made from the table of settings (src/defaults.ts): the connection's,
 * for every command that talks to the bus (the nats CLI's names), and serve's
 * own. No option has a commander default: it would hide the environment's
 * value; the configuration applies the defaults, and the help says them.
 */
import type { Command } from "commander";
import { COMMAND_ROLE, inboxPrefix, type Role } from "../permissions/inbox.js";
import { CONNECTION_SETTINGS, SERVE_SETTINGS, type Setting } from "../defaults.js";

/** What `--help` says of a setting: its help, its variable(s), its default and its bounds. */
export function describeSetting(s: Setting, defaultText: string | undefined = s.default): string {
  const env = s.fallbackEnv === undefined ? `env ${s.env}` : `env ${s.env}, then ${s.fallbackEnv}`;
  const bounds = s.bounds === undefined ? "" : `; ${s.bounds.min} to ${s.bounds.max}`;
  return `${s.help} (${env}${defaultText === undefined ? "" : `; default ${defaultText}`}${bounds})`;
}

function addSettings(cmd: Command, settings: readonly Setting[], defaultText: (s: Setting) => string | undefined = (s) => s.default): Command {
  for (const s of settings) {
    cmd.option(`${s.short === undefined ? "" : `${s.short}, `}${s.flag}${s.value === "" ? "" : ` ${s.value}`}`, describeSetting(s, defaultText(s)));
  }
  return cmd;
}

/** `role`: whose grant the command runs under, and so whose inbox prefix it uses by default. */
export function addConnectionOptions(cmd: Command, role: Role = COMMAND_ROLE): Command {
  return addSettings(cmd, CONNECTION_SETTINGS, (s) => (s.key === "inboxPrefix" ? `${inboxPrefix(role)}, the ${role}'s grant's` : s.default));
}

/** `serve`'s own options. */
export function addServeOptions(cmd: Command): Command {
  return addSettings(cmd, SERVE_SETTINGS);
}
