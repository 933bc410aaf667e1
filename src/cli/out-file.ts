/**
 * A file a command writes its output to (`dump --out`): checked before the
 * command does its work, so a path that cannot be written is said at once, and
 * a failed write is one line naming the path and why, as a bad flag is.
 */
import { accessSync, constants, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Failure } from "../failure.js";

/** Why `err` (a file system error) kept `path` from being written, in words. */
function why(err: unknown, path: string): string {
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case "ENOENT":
      return `its directory ${dirname(resolve(path))} does not exist`;
    case "ENOTDIR":
      return "a part of its path is not a directory";
    case "EISDIR":
      return "it is a directory";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "the file system is read-only";
    case "ENOSPC":
      return "the disk is full";
    default:
      return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ");
  }
}

/** The CONFIG Failure of `flag`'s `path` that could not be written. */
export function cannotWrite(flag: string, path: string, err: unknown): Failure {
  return new Failure("CONFIG", `${flag} ${JSON.stringify(path)} cannot be written: ${why(err, path)}`, { cause: err });
}

/** Throws the CONFIG Failure `cannotWrite` makes unless `path` can be created or replaced (I/O: stats, never writes). */
export function checkWritable(flag: string, path: string): void {
  if (path.trim() === "") throw new Failure("CONFIG", `${flag} is empty: give the path of the file to write`);
  try {
    let exists = true;
    try {
      if (statSync(path).isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      exists = false;
    }
    if (exists) accessSync(path, constants.W_OK);
    else {
      const dir = dirname(resolve(path));
      if (!statSync(dir).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
      accessSync(dir, constants.W_OK);
    }
  } catch (err) {
    throw cannotWrite(flag, path, err);
  }
}
