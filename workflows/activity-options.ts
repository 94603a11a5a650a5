/** Named timeouts and retry policies of the agent's activities. */
import type { ActivityOptions } from '@temporalio/workflow';

/**
 * Model calls: streaming activities that heartbeat, so a dead worker is noticed within the heartbeat
 * timeout rather than the long overall timeout. Temporal's retry is the only retry layer (SDK retries
 * are off). After the attempts run out the agent stays in its state and waits for a retry.
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
 * Tool runs: a tool's own failures come back as Failed results, not activity failures; these retries
 * cover infrastructure (a worker dying mid-run, a timeout). Tools get an idempotency key for that.
 */
export const DEFAULT_TOOL_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '60 minutes', // above any tool's own timeout (at most 55 minutes)
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    // Also the attempts a call gets to reach a worker that has its tool (see tools/missing-tool.ts).
    maximumAttempts: 10,
  },
};

/**
 * Seals: a segment of a few hundred KB written to the blob store. Retried while the store is away (it
 * can wait: the working set just stays larger meanwhile), then given up until the agent next rests.
 */
export const ARCHIVE_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 8,
  },
};
