/**
 * The step dependencies: how the agent core's `doStep` reaches outside the workflow — model calls,
 * compactions' summary calls and tools as activities, durable timers, sub-agents (sub-agent-link.ts), the run's patches and its logger.
 */
import { condition, isCancellation, log, proxyActivities, proxyLocalActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../../activities/index';
import type { CallModelInput } from '../../activities/types';
import { type Agent, type ArchiveIndex, InfrastructureError, type StepDeps, effectKey, segmentsForContext } from '../../agent/index';
import {
  DEFAULT_MODEL_ACTIVITY_OPTIONS,
  DEFAULT_TOOL_ACTIVITY_OPTIONS,
  FAILOVER_HEARTBEATS_CHANGE,
  LOCAL_MODEL_ACTIVITY_OPTIONS,
  LOCAL_MODEL_CALL_CHANGE,
  TOOL_ACTIVITY_OPTIONS_BEFORE_FAILOVER,
} from '../activity-options';
import { debugLogsOn } from '../debug-logs';
import { entryFeed } from '../entry-feed';
import { MODEL_ROUTING_CHANGE, ROUTED_START_TIMEOUT, isRoutable, notTaken, notTakenFailure, providerOf, providerTaskQueue } from '../model-routing';
import { TIMERS_CARRIED_PATCH } from '../run-changes';

/** Since this patch a model call or compaction names the archive by how far it reaches, not by its segments (see contextArchive). */
export const ARCHIVE_BY_REFERENCE_CHANGE = 'archive-by-reference';
import { decoded, modelCallFailure, STEP_CANCELLED, toAgentFailure } from './failures';

type Activities = ReturnType<typeof createActivities>;
const { callModel } = proxyActivities<Activities>(DEFAULT_MODEL_ACTIVITY_OPTIONS);
const { executeTool } = proxyActivities<Activities>(DEFAULT_TOOL_ACTIVITY_OPTIONS);
const { compactContext } = proxyActivities<Activities>(DEFAULT_MODEL_ACTIVITY_OPTIONS);
// `modelCalls: 'local'` (LOCAL_MODEL_CALL_CHANGE): the same activities, run inside the workflow task.
const local = proxyLocalActivities<Activities>(LOCAL_MODEL_ACTIVITY_OPTIONS);
/** The attempts a model call gets, for the record of one whose retries ran out. */
const MODEL_ATTEMPTS = DEFAULT_MODEL_ACTIVITY_OPTIONS.retry?.maximumAttempts;

/** What the waits inside a step (a timer, a sub-agent's answer) give way to. */
export interface StepWaits {
  /**
   * This run must end or move on: stop, reset, or a history grown too long while the agent waited
   * (inputs keep arriving). A wait gives way; its timer or call is in the agent's state and resumes in the next run.
   */
  runMovesOn(): boolean;
  /** A wait gave way for runMovesOn: the run continues as new unless it ends anyway. */
  movedOn(): void;
  /** A sub-agent's wait ends for that, and for an interrupt too. */
  subAgentWaitEnds(): boolean;
  /** A step started a child agent, which outlives the step (see stepScopes). */
  childStarted(): void;
}

export function stepDeps(agent: Agent, changed: (change: string) => boolean, waits: StepWaits, delegate: StepDeps['delegate']): StepDeps {
  const { workflowId, runId } = workflowInfo();
  const feed = entryFeed(() => agent.state.entries);
  // Asked when a tool run is scheduled, so a run that runs no tool records no marker.
  const toolOptions = () => (changed(FAILOVER_HEARTBEATS_CHANGE) ? DEFAULT_TOOL_ACTIVITY_OPTIONS : TOOL_ACTIVITY_OPTIONS_BEFORE_FAILOVER);
  // Asked when a call is made (the configuration may have changed since), and only by agents that chose local calls.
  const localCalls = () => agent.config.modelCalls === 'local' && changed(LOCAL_MODEL_CALL_CHANGE);
  return {
    delegate,
    async callModel(request) {
      const isLocal = localCalls();
      feed.beforeModelCall(isLocal); // this worker's callModel then needs no entries query (no command, no history)
      // The summary makes the activity readable in the Web UI ("model openai:gpt-4.1-mini").
      const options = { ...DEFAULT_MODEL_ACTIVITY_OPTIONS, summary: `model ${request.model}` };
      const archive = agent.state.archive;
      const args = [
        {
          ...request,
          agentId: workflowId,
          runId,
          routable: true,
          // Only once entries were archived, so model calls of other agents are scheduled as they were.
          ...(archive ? { archive: contextArchive(archive, changed, isLocal) } : {}),
        },
      ] as const;
      let result;
      try {
        result = isLocal
          ? await local.callModel.executeWithOptions({ ...LOCAL_MODEL_ACTIVITY_OPTIONS, summary: options.summary }, [...args])
          : await callModel.executeWithOptions(options, [...args]);
      } catch (err) {
        if (isLocal) feed.resendWhole(); // whatever failed, the worker's cache may lack some of the run's entries
        if (isCancellation(err)) throw new InfrastructureError(STEP_CANCELLED, 'The model call was cancelled.');
        if (!isRoutable(err) || !changed(MODEL_ROUTING_CHANGE)) throw modelCallFailure(err, MODEL_ATTEMPTS);
        // The worker that took it lacks the provider's key; one polling the provider's queue has it.
        const taskQueue = providerTaskQueue(workflowInfo().taskQueue, providerOf(request.model));
        try {
          result = await callModel.executeWithOptions({ ...options, taskQueue, scheduleToStartTimeout: ROUTED_START_TIMEOUT }, [...args]);
        } catch (routedErr) {
          if (isCancellation(routedErr)) throw new InfrastructureError(STEP_CANCELLED, 'The model call was cancelled.');
          throw notTaken(routedErr) ? notTakenFailure(toAgentFailure(err), taskQueue) : modelCallFailure(routedErr, MODEL_ATTEMPTS);
        }
      }
      return decoded(result, `a model call to ${request.model}`);
    },
    async compact(request) {
      const isLocal = localCalls();
      feed.beforeModelCall(isLocal); // as for a model call: the activity reads the entries from this worker's cache
      const options = { ...DEFAULT_MODEL_ACTIVITY_OPTIONS, summary: `compaction ${request.model}` };
      try {
        const archive = agent.state.archive;
        const input = {
          ...request,
          agentId: workflowId,
          runId,
          // As for a model call: the entries to summarise may be archived.
          ...(archive ? { archive: contextArchive(archive, changed, isLocal) } : {}),
        };
        const summary = isLocal
          ? await local.compactContext.executeWithOptions({ ...LOCAL_MODEL_ACTIVITY_OPTIONS, summary: options.summary }, [input])
          : await compactContext.executeWithOptions(options, [input]);
        return decoded(summary, `a compaction by ${request.model}`);
      } catch (err) {
        if (isLocal) feed.resendWhole();
        if (isCancellation(err)) throw new InfrastructureError(STEP_CANCELLED, 'The compaction was cancelled.');
        throw modelCallFailure(err, MODEL_ATTEMPTS);
      }
    },
    async sleep(ms) {
      if (!changed(TIMERS_CARRIED_PATCH)) {
        await sleep(ms); // histories recorded before the patch slept through everything
        return true;
      }
      const interrupted = await condition(waits.runMovesOn, ms);
      if (interrupted) waits.movedOn();
      return !interrupted;
    },
    async executeTool(call, options) {
      let result;
      try {
        result = await executeTool.executeWithOptions({ ...toolOptions(), summary: `tool ${call.toolName}` }, [
          {
            ...(options?.approved ? { approved: true } : {}),
            ...(options?.offered === false ? { offered: false } : {}),
            agentId: workflowId,
            runId,
            // The raw arguments only: the parsed copy is in the model output entry already, and the
            // activity parses the raw text again (the same way), so the arguments enter history once more, not twice.
            call: { toolName: call.toolName, toolCallId: call.toolCallId, rawArguments: call.rawArguments },
            idempotencyKey: effectKey(workflowId, call.toolCallId),
            // This agent waits on a call whose earlier attempt's outcome is unknown (agent/effect-ledger.ts).
            unknownOutcomes: true,
            ...(agent.config.tools ? { allowedTools: agent.config.tools } : {}),
          },
        ]);
      } catch (err) {
        // Interrupted: not the tool's failure; the agent answers the call as interrupted.
        if (isCancellation(err)) throw new InfrastructureError(STEP_CANCELLED, `The tool ${call.toolName} was cancelled.`);
        const failure = toAgentFailure(err);
        return {
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          status: 'Failed',
          result: `The tool ${call.toolName} did not complete: ${failure.message}`,
        };
      }
      return decoded(result, `the tool ${call.toolName}`);
    },
    since: changed,
    // Category-tagged debug messages; the worker's logger shows the categories in LIVECONTEXT_DEBUG. Not sent
    // at all when the worker wants none (see ../debug-logs.ts): the agent then skips building them too.
    log: debugLogsOn()
      ? (category, message, attributes) => {
          log.debug(message, { category, ...attributes });
        }
      : undefined,
  };
}

/**
 * What a model call or a compaction is told of the archive. Since ARCHIVE_BY_REFERENCE_CHANGE: how far it
 * reaches and how many archived rewinds it holds, no more — the activity reads the index (the `archive`
 * query, cached by the worker until the next seal), so a call's input stays the same size however many
 * segments and rewinds the agent has. Before: the newest segment and every archived rewind's range,
 * which put ~400 bytes more into every model call's input from the first seal on, and more with each rewind.
 */
function contextArchive(archive: ArchiveIndex, changed: (change: string) => boolean, local: boolean): NonNullable<CallModelInput['archive']> {
  const rewinds = archive.rewound?.length ?? 0;
  // A local call's input never enters history, and the archive query the reference needs would wait for
  // the very workflow task the call holds: it gets the segments inline.
  if (!local && changed(ARCHIVE_BY_REFERENCE_CHANGE)) return { throughSeq: archive.throughSeq, ...(rewinds ? { rewinds } : {}) };
  return {
    throughSeq: archive.throughSeq,
    segments: segmentsForContext(archive, archive.throughSeq),
    ...(rewinds ? { rewound: archive.rewound } : {}),
  };
}
