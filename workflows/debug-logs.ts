/**
 * Whether workflow code sends its category debug lines (LIVECONTEXT_DEBUG=History,StateMachine,…) to the
 * worker at all. Each line is a sink call: its attributes and the workflow's info are cloned and posted
 * from the workflow thread to the worker's main thread, whose logger drops it unless its category is on
 * (common/logging.ts) — four per plain turn, for nothing when no category is. The shared modules
 * (shared-modules.ts) turn them off; createLivecontextWorker preloads debug-logs-on.ts after them when
 * LIVECONTEXT_DEBUG names a category (DEBUG_LOGS_PATH, for a bundle of your own). A bundle without the
 * shared modules sends them, as before. No command or history event depends on it.
 */
let on = true;

/** Whether category debug lines are sent (read when a run sets up its step dependencies). */
export function debugLogsOn(): boolean {
  return on;
}

/** For the preloaded modules only: they run once per workflow thread, before any workflow. */
export function setDebugLogs(value: boolean): void {
  on = value;
}
