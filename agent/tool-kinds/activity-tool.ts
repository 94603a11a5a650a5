/**
 * Every other call runs outside the workflow, as the executeTool activity (StepDeps.executeTool). The
 * executor checks the agent's allowance itself (it names the worker's tools when it refuses one) and
 * the tool's own approval policy, which a person's approval (or the agent's `never`) skips. It is last
 * in the registry: it takes whatever no in-workflow kind took.
 */
import { InfrastructureError } from '../errors';
import type { ToolCallResult } from '../entries';
import { endEffect, retryMetadata, startEffect } from '../effect-ledger';
import { type ToolKind, callBase, isoNow, withMetadata } from './tool-kind';

export const activityToolKind: ToolKind<true> = {
  name: 'activity',
  allowedBy: 'own',
  recognise: () => true,
  async run({ call, host, deps, approved }) {
    const base = callBase(call);
    try {
      const offered = host.offered(call.toolName);
      const options = { ...(approved ? { approved: true } : {}), ...(offered ? {} : { offered: false }) };
      startEffect(host.effects, call.toolCallId, isoNow(host));
      const result = await deps.executeTool(call, Object.keys(options).length ? options : undefined);
      if ('approvalRequired' in result) {
        delete host.effects[call.toolCallId]; // it did not run
        return result;
      }
      if ('outcomeUnknown' in result) return result; // the tool step marks it unknown (or records it failed)
      // The result must answer this call whatever the executor returned, and keep metadata within limits.
      const retried = retryMetadata(host.effects[call.toolCallId]);
      const answered = withMetadata({ ...result, ...base }, retried ? { ...result.metadata, ...retried } : result.metadata);
      endEffect(host.effects, answered, isoNow(host));
      return answered;
    } catch (err) {
      if (err instanceof InfrastructureError) throw err; // not the tool's failure: nothing to record
      const failed: ToolCallResult = {
        ...base,
        status: 'Failed',
        result: `Tool ${call.toolName} could not be executed: ${(err as Error)?.message ?? String(err)}`,
      };
      endEffect(host.effects, failed, isoNow(host));
      return failed;
    }
  },
};
