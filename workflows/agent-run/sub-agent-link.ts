/**
 * The sub-agent link: children this agent starts (child workflows, abandoned when a run closes), the
 * answers it waits for, the stop it sends them, and — when the agent is a child itself — the report of
 * its task's outcome to its parent. Results arrive by signal (see control-handlers.ts), at whatever run
 * of the parent is current.
 */
import { condition, getExternalWorkflowHandle, isCancellation, log, ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  type Agent,
  InfrastructureError,
  LivecontextError,
  type StepDeps,
  SUB_AGENT_FAILURES_CHANGE,
  subAgentEndedResult,
  subAgentIds,
  subAgentReport,
} from '../../agent/index';
import { type AgentWorkflowInput, stopSignal, subAgentResultSignal } from '../messages';
import { failureText, STEP_CANCELLED } from './failures';
import type { RunControl } from './run-control';
import type { StepWaits } from './step-deps';

/** The agent workflow itself (passed in: this module is imported by the file that defines it). */
type AgentWorkflow = (input: AgentWorkflowInput) => Promise<unknown>;

export function subAgentLink(agent: Agent, run: RunControl, changed: (change: string) => boolean, waits: StepWaits, agentWorkflow: AgentWorkflow) {
  const { workflowId } = workflowInfo();
  /** Why a sub-agent this run started ended without reporting, by its call's id. */
  const ended = new Map<string, string>();
  let reported = false;

  const delegate: NonNullable<StepDeps['delegate']> = {
    async start(request) {
      const { childId, sender } = subAgentIds(workflowId, request, () => changed(SUB_AGENT_FAILURES_CHANGE));
      const config = { ...request.config, delegatedBy: { ...request.config.delegatedBy!, agentId: workflowId } };
      const input: AgentWorkflowInput = {
        config,
        initialInput: { text: request.task, sender },
        ...(request.systemInstruction ? { systemInstruction: request.systemInstruction } : {}),
      };
      // Abandoned, not ended, when this run closes: continue-as-new must not take the children with it.
      // Stopping or resetting the parent stops them explicitly (stopAll).
      waits.childStarted();
      let child;
      try {
        child = await startChild(agentWorkflow, {
          workflowId: childId,
          args: [input],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          staticSummary: `livecontext sub-agent ${request.profile} (${config.model})`,
        });
      } catch (err) {
        if (isCancellation(err)) throw new InfrastructureError(STEP_CANCELLED, 'The start of a sub-agent was cancelled.');
        // The agent turns it into the call's Failed result (see SUB_AGENT_FAILURES_CHANGE).
        if (err instanceof WorkflowExecutionAlreadyStartedError)
          throw new LivecontextError('SUB_AGENT_ID_TAKEN', `a workflow with the id ${childId} already runs`);
        throw err;
      }
      // A child that ends without reporting (it failed at start, or was terminated) will never answer: in
      // this run its end is seen here. (A child started by an earlier run reports by signal only.)
      child.result().then(
        () => ended.set(request.toolCallId, 'it ended without reporting'),
        (err: unknown) => ended.set(request.toolCallId, failureText(err)),
      );
      return childId;
    },
    async wait(toolCallId) {
      let endIgnored = false; // a history recorded before SUB_AGENT_FAILURES_CHANGE waited on
      for (;;) {
        await condition(() => agent.subAgentAnswered(toolCallId) || waits.subAgentWaitEnds() || waits.runMovesOn() || (ended.has(toolCallId) && !endIgnored));
        if (agent.subAgentAnswered(toolCallId)) return true;
        if (waits.runMovesOn()) waits.movedOn();
        if (waits.subAgentWaitEnds() || waits.runMovesOn()) return false;
        const call = agent.runningSubAgents().find((c) => c.toolCallId === toolCallId);
        if (call && changed(SUB_AGENT_FAILURES_CHANGE)) {
          agent.recordSubAgentResult(subAgentEndedResult(toolCallId, call.agentId, ended.get(toolCallId)));
          return true;
        }
        endIgnored = true;
      }
    },
  };

  return {
    delegate,
    /** Stops the sub-agents still working for this agent (fire and forget: a child already gone is fine). */
    stopAll(reason: string): Promise<unknown> {
      return Promise.all(
        agent.runningSubAgents().map((child) =>
          getExternalWorkflowHandle(child.agentId)
            .signal(stopSignal, { reason })
            .catch((err: unknown) => log.warn('could not stop a sub-agent', { category: 'Tools', agentId: child.agentId, reason: (err as Error).message })),
        ),
      );
    },
    /**
     * A sub-agent tells its parent the outcome of its task (its first input) once there is one, then
     * stops. True when it reported. The parent is signalled by workflow id: its current run gets it.
     */
    async reportToParent(): Promise<boolean> {
      const parent = agent.config.delegatedBy;
      if (!parent || reported) return false;
      const stopped = run.stopReason !== undefined || run.resetRequested ? (run.stopReason ?? 'reset') : undefined;
      const report = subAgentReport(agent.turnOutcome(1), stopped);
      if (!report) return false;
      reported = true;
      try {
        await getExternalWorkflowHandle(parent.agentId).signal(subAgentResultSignal, { toolCallId: parent.toolCallId, agentId: workflowId, ...report });
      } catch (err) {
        log.warn('could not report to the parent agent', { category: 'Tools', parent: parent.agentId, reason: (err as Error).message });
      }
      run.reportedToParent();
      return true;
    },
  };
}
