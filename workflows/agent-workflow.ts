/**
 * The agent workflow: seed 004's state machine, durable. It runs `doStep()` until the agent is blocked
 * on input, then waits for input. Everything the agent knows lives in `Agent` (pure, in ../agent), so
 * this file only wires Temporal to it: handlers in, activities out.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  log,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  Agent,
  ConfigChange,
  InputRejectedError,
  LivecontextError,
  parseInput,
  type StepDeps,
  type TurnOutcome,
} from '../agent';
import { DEFAULT_MODEL_ACTIVITY_OPTIONS, DEFAULT_TOOL_ACTIVITY_OPTIONS } from './activity-options';
import { describeAgent, pageEntries } from './agent-views';
import {
  type AgentWorkflowInput,
  type ToolDecision,
  configureSignal,
  configureUpdate,
  decideToolCallSignal,
  decideToolCallUpdate,
  entriesQuery,
  inputSignal,
  pendingToolCallsQuery,
  retrySignal,
  sendInputUpdate,
  snapshotQuery,
  stateQuery,
  stopSignal,
  waitForAnswerUpdate,
} from './messages';

type Activities = ReturnType<typeof createActivities>;
const { callModel } = proxyActivities<Activities>(DEFAULT_MODEL_ACTIVITY_OPTIONS);
const { executeTool } = proxyActivities<Activities>(DEFAULT_TOOL_ACTIVITY_OPTIONS);

export interface AgentWorkflowResult {
  stopped: true;
  reason: string;
  lastSeq: number;
}

export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentWorkflowResult> {
  const clock = () => Date.now(); // Temporal's deterministic clock inside workflows
  const agent =
    'snapshot' in input
      ? Agent.fromSnapshot(input.snapshot, clock)
      : Agent.create({ config: input.config, systemInstruction: input.systemInstruction, clock });
  let stopReason: string | undefined;
  let retryRequested = false;

  setHandler(inputSignal, (raw) => {
    try {
      const { inputSeq } = agent.enqueueInput(raw);
      log.debug('input accepted (signal)', { category: 'History', inputSeq });
    } catch (err) {
      // A signal cannot be refused, and throwing here would fail the workflow task: log and drop.
      log.warn('input signal dropped', { category: 'History', reason: (err as Error).message });
    }
  });

  setHandler(sendInputUpdate, (raw) => agent.enqueueInput(raw), {
    validator: (raw) => {
      if (stopReason !== undefined) throw new InputRejectedError('AGENT_STOPPING', 'The agent is stopping.');
      parseInput(raw); // the same checks enqueueInput makes, so a refused input never reaches the handler
    },
  });

  setHandler(
    waitForAnswerUpdate,
    async ({ inputSeq }): Promise<TurnOutcome> => {
      let outcome: TurnOutcome | undefined;
      await condition(() => (outcome = agent.turnOutcome(inputSeq)) !== undefined || stopReason !== undefined);
      return outcome ?? { inputSeq, status: 'stopped' };
    },
    {
      validator: ({ inputSeq }) => {
        if (!Number.isInteger(inputSeq) || inputSeq < 1 || inputSeq >= agent.toSnapshot().nextInputSeq) {
          throw new InputRejectedError('UNKNOWN_INPUT', `No input #${inputSeq} was accepted by this agent.`);
        }
      },
    },
  );

  const applyConfig = (change: ConfigChange) => {
    const { systemInstruction, ...rest } = ConfigChange.parse(change);
    agent.config = { ...agent.config, ...rest };
    if (systemInstruction !== undefined && systemInstruction !== agent.state.systemInstruction) {
      // Recorded in history, so every later model call (and every replay) renders the instruction in force.
      agent.state.setSystemInstruction(systemInstruction);
    }
    retryRequested = true; // a new configuration is a reason to try a failed call again
    log.debug('configuration changed', { category: 'History', ...rest, systemInstructionChanged: systemInstruction !== undefined });
  };
  setHandler(configureSignal, (change) => {
    try {
      applyConfig(change);
    } catch (err) {
      log.warn('configure signal dropped', { category: 'History', reason: (err as Error).message });
    }
  });
  setHandler(
    configureUpdate,
    (change) => {
      applyConfig(change);
      return describeAgent(agent, stopReason !== undefined);
    },
    {
      validator: (change) => {
        const parsed = ConfigChange.safeParse(change);
        if (!parsed.success) {
          throw new InputRejectedError('BAD_CONFIG', parsed.error.issues.map((i) => i.message).join('; '));
        }
      },
    },
  );

  let decisions = 0; // bumped on every approve/deny, to wake a loop blocked on approval
  const decide = (d: ToolDecision) => {
    agent.decideToolCall(d.toolCallId, d);
    decisions++;
    log.debug(`tool call ${d.toolCallId} ${d.approved ? 'approved' : 'denied'}`, { category: 'Tools', by: d.by });
  };
  setHandler(
    decideToolCallUpdate,
    (d) => {
      decide(d);
      return describeAgent(agent, stopReason !== undefined);
    },
    {
      validator: (d) => {
        if (!d || typeof d.toolCallId !== 'string' || typeof d.approved !== 'boolean') {
          throw new InputRejectedError('BAD_DECISION', 'A decision is {"toolCallId": "...", "approved": true|false, "reason"?: "..."}.');
        }
        if (!agent.pendingToolCalls().some((c) => c.toolCallId === d.toolCallId)) {
          throw new InputRejectedError('UNKNOWN_TOOL_CALL', `No pending tool call ${d.toolCallId}.`);
        }
      },
    },
  );
  setHandler(decideToolCallSignal, (d) => {
    try {
      decide(d);
    } catch (err) {
      log.warn('tool decision dropped', { category: 'Tools', reason: (err as Error).message });
    }
  });

  setHandler(retrySignal, () => {
    retryRequested = true;
  });
  setHandler(stopSignal, (arg) => {
    stopReason = arg?.reason ?? 'stop requested';
  });

  setHandler(stateQuery, () => describeAgent(agent, stopReason !== undefined));
  setHandler(entriesQuery, (req) => pageEntries(agent.state.entries, req ?? {}));
  setHandler(pendingToolCallsQuery, () => agent.pendingToolCalls());
  setHandler(snapshotQuery, () => agent.toSnapshot());

  const deps = stepDeps(agent);
  while (stopReason === undefined) {
    const outcome = await agent.doStep(deps);
    if (outcome === 'BlockedOnInput') {
      await condition(() => agent.inbox.length > 0 || stopReason !== undefined);
    } else if (outcome === 'BlockedOnApproval') {
      const seen = decisions;
      await condition(() => decisions !== seen || stopReason !== undefined);
    } else if (outcome === 'BlockedOnError') {
      await condition(() => retryRequested || stopReason !== undefined);
      retryRequested = false;
      agent.clearError();
    }
  }
  await condition(allHandlersFinished);
  return { stopped: true, reason: stopReason, lastSeq: agent.state.lastSeq };
}

function stepDeps(agent: Agent): StepDeps {
  const { workflowId, runId } = workflowInfo();
  return {
    async callModel(request) {
      try {
        return await callModel({ ...request, agentId: workflowId, runId });
      } catch (err) {
        throw toAgentFailure(err);
      }
    },
    sleep: (ms) => sleep(ms),
    async executeTool(call, options) {
      try {
        return await executeTool({
          ...(options?.approved ? { approved: true } : {}),
          agentId: workflowId,
          runId,
          call,
          idempotencyKey: `${workflowId}/${call.toolCallId}`,
          ...(agent.config.tools ? { allowedTools: agent.config.tools } : {}),
        });
      } catch (err) {
        const failure = toAgentFailure(err);
        return {
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          status: 'Failed',
          result: `The tool ${call.toolName} did not complete: ${failure.message}`,
        };
      }
    },
    // Category-tagged debug messages; the worker's logger shows the categories in LIVECONTEXT_DEBUG.
    log(category, message, attributes) {
      log.debug(message, { category, ...attributes });
    },
  };
}

/** Activity failures arrive wrapped; the agent records the innermost application error's type and message. */
function toAgentFailure(err: unknown): LivecontextError {
  let cause: unknown = err;
  while (cause instanceof ActivityFailure && cause.cause) cause = cause.cause;
  if (cause instanceof ApplicationFailure) {
    return new LivecontextError(cause.type ?? 'ACTIVITY_FAILED', cause.message);
  }
  return new LivecontextError('ACTIVITY_FAILED', cause instanceof Error ? cause.message : String(cause));
}
