/**
 * Preloaded (`node --expose-gc --import <this file>`) into the service and the
 * bare watch alike, so both are measured the same way: on SIGWINCH (which
 * neither uses, and whose default action is to ignore it) run a full gc, so
 * that the resident memory read a moment later is what the process holds,
 * not garbage it has not collected yet.
 */
const gc = (globalThis as { gc?: () => void }).gc;
process.on("SIGWINCH", () => {
  try {
    gc?.();
  } catch {
    // A failed gc only makes the memory figure less exact.
  }
});
