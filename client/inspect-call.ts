/**
 * What one model call was sent (`livecontext inspect AGENT --call SEQ`): asked of a worker of the
 * agent's task queue through the short inspectCallWorkflow (workflows/inspect-call-workflow.ts), because
 * the request depends on that worker's tools and providers. The answer is the request rendered again
 * from history, its SHA-256, the fingerprint the call recorded and whether the two match.
 */
import { type Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { UserError } from '../common/user-error';
import type * as workflows from '../workflows/index';
import type { InspectedCall, inspectCallWorkflow } from '../workflows/inspect-call-workflow';

export type { InspectedCall };

export async function inspectModelCall(client: Client, taskQueue: string, agentId: string, seq: number): Promise<InspectedCall> {
  if (!Number.isSafeInteger(seq) || seq < 1) throw new UserError(`A call is named by its model_output entry's seq, a positive whole number (got ${seq}).`);
  try {
    return await client.workflow.execute<typeof inspectCallWorkflow>('inspectCallWorkflow' satisfies keyof typeof workflows, {
      // Asks for the same call at the same moment share one run.
      workflowId: `livecontext-inspect-${agentId}-${seq}`,
      taskQueue,
      args: [{ agentId, seq }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowExecutionTimeout: '2 minutes',
      staticSummary: `livecontext: what model call #${seq} of ${agentId} was sent`,
    });
  } catch (err) {
    const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === 'NotAModelCall') throw new UserError(cause.message, 'NOT_A_MODEL_CALL');
    throw err;
  }
}

/** With `short`, strings longer than this (image data, long tool results) are cut. */
export const SHORT_TEXT_CHARS = 200;

/** A copy with strings past SHORT_TEXT_CHARS cut, saying how much was left out (the hashes stay the whole body's). */
export function shortened<T>(value: T): T {
  if (typeof value === 'string') {
    return (value.length > SHORT_TEXT_CHARS ? `${value.slice(0, SHORT_TEXT_CHARS)}… [${value.length - SHORT_TEXT_CHARS} more characters]` : value) as T;
  }
  if (Array.isArray(value)) return value.map(shortened) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, shortened(x)])) as T;
  return value;
}
