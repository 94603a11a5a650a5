/**
 * Every other call runs outside the workflow, as the executeTool activity (StepDeps.executeTool). The
 * executor checks the agent's allowance itself (it names the worker's tools when it refuses one) and
 * the tool's own approval policy, which a person's approval (or the agent's `never`) skips. It is last
 * in the registry: it takes whatever no in-workflow kind took.
 */
import { InfrastructureError } from '../errors';
import { type ToolKind, callBase, withMetadata } from './tool-kind';

export const activityToolKind: ToolKind<true> = {
  name: 'activity',
  allowedBy: 'own',
  recognise: () => true,
  async run({ call, host, deps, approved }) {
    const base = callBase(call);
    try {
      const offered = host.offered(call.toolName);
      const options = { ...(approved ? { approved: true } : {}), ...(offered ? {} : { offered: false }) };
      const result = await deps.executeTool(call, Object.keys(options).length ? options : undefined);
      if ('approvalRequired' in result) return result;
      // The result must answer this call whatever the executor returned, and keep metadata within limits.
      return withMetadata({ ...result, ...base }, result.metadata);
    } catch (err) {
      if (err instanceof InfrastructureError) throw err; // not the tool's failure: nothing to record
      return { ...base, status: 'Failed', result: `Tool ${call.toolName} could not be executed: ${(err as Error)?.message ?? String(err)}` };
    }
  },
};
