/** Named timeouts and retry policies of the agent's activities. */
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/**
 * Since this change tool runs are scheduled with the 4 s heartbeat timeout below (before: 10 s), so a
 * worker killed mid-tool is noticed in seconds. Asked where a tool run is scheduled.
 */
export const FAILOVER_HEARTBEATS_CHANGE = 'heartbeat-timeouts-for-failover';

/**
 * Model calls: streaming activities that heartbeat, so a dead worker is noticed within the heartbeat
 * timeout rather than the long overall timeout. Kept at 10 s: on the stream endpoint a call beats every
 * 0.6 of it (activities/model-call/stream-progress.ts), and each recorded heartbeat is a billable action,
 * so a shorter timeout would make long answers cost more. Temporal's retry is the only retry layer (SDK
 * retries are off). After the attempts run out the agent stays in its state and waits for a retry.
 */
export const DEFAULT_MODEL_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 6,
  },
};

/**
 * Since this change an agent configured with `modelCalls: 'local'` makes its model calls (and compactions'
 * summary calls) as local activities. Asked where such a call is scheduled, so other agents' histories stay as they were.
 */
export const LOCAL_MODEL_CALL_CHANGE = 'local-model-call';

/**
 * Model calls as local activities (`modelCalls: 'local'`): run by the worker that holds the workflow task,
 * inside that task, so a plain turn is one workflow task (no activity task through matching). The same
 * per-attempt timeout and retries as a regular call; no heartbeat timeout (a local activity cannot
 * heartbeat: the worker heartbeats the workflow task while the call runs). A retry due more than
 * localRetryThreshold later waits on a durable timer, which releases the workflow task meanwhile (inputs,
 * interrupts and queries get through); shorter ones are retried inside the task.
 */
export const LOCAL_MODEL_ACTIVITY_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: DEFAULT_MODEL_ACTIVITY_OPTIONS.startToCloseTimeout,
  retry: DEFAULT_MODEL_ACTIVITY_OPTIONS.retry,
  localRetryThreshold: '5 seconds',
};

/**
 * Tool runs: a tool's own failures come back as Failed results, not activity failures; these retries
 * cover infrastructure (a worker dying mid-run, a timeout). Tools get an idempotency key for that.
 * The runtime heartbeats every second while a tool's body runs, whether or not the tool calls
 * `ctx.heartbeat` (activities/execute-tool.ts): a 4 s timeout notices a dead worker within 3–4 s and
 * leaves 3 s for a stalled event loop (3 s, with 2 to spare, tripped on a machine at a load of 18 on 2 cores). A body that blocks the event loop longer must run off it.
 */
export const DEFAULT_TOOL_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '60 minutes', // above any tool's own timeout (at most 55 minutes)
  heartbeatTimeout: '4 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    // Also the attempts a call gets to reach a worker that has its tool (see tools/missing-tool.ts).
    maximumAttempts: 10,
  },
};

/** The tool options of runs made before FAILOVER_HEARTBEATS_CHANGE, as they were recorded. */
export const TOOL_ACTIVITY_OPTIONS_BEFORE_FAILOVER: ActivityOptions = { ...DEFAULT_TOOL_ACTIVITY_OPTIONS, heartbeatTimeout: '10 seconds' };

/**
 * Seals: a segment of a few hundred KB written to the blob store. Retried while the store is away (it
 * can wait: the working set just stays larger meanwhile), then given up until the agent next rests.
 */
/**
 * A2A push notifications (activities/deliver-a2a-push.ts): a webhook that keeps failing is given up on
 * after about two minutes (the agent records it and goes on); a notification waits for the one before.
 */
export const A2A_PUSH_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 6,
  },
};

export const ARCHIVE_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 8,
  },
};
