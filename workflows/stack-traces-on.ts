/**
 * Preloaded after workflows/shared-modules.ts, which turns workflow-side stack traces off for speed: turns
 * them back on (V8's default depth), for the Temporal UI's stack-trace view and errors with frames.
 * createLivecontextWorker adds it when LIVECONTEXT_WORKFLOW_STACK_TRACES=1 (WORKFLOW_STACK_TRACES_PATH).
 */
(Error as ErrorConstructor & { stackTraceLimit: number }).stackTraceLimit = 10;

export {};
