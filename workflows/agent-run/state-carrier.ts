/**
 * Whether this run may continue as new with the agent's state. A state over the inline payload limit
 * needs a worker that offloads payloads: without one Temporal refuses the continue-as-new command and
 * terminates the agent. Then the agent stays in this run instead, and its status says why; its
 * workers are asked again every REASK_AFTER_EVENTS events, so turning offloading on lets it move on.
 */
import { log, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../../activities/index';
import { type Agent, MAX_INLINE_PAYLOAD_BYTES, readSnapshot, utf8Length } from '../../agent/index';
import { STATE_SIZE_GUARD_PATCH } from '../run-changes';
import { decoded } from './failures';

const { payloadLimits } = proxyLocalActivities<ReturnType<typeof createActivities>>({ startToCloseTimeout: '10 seconds' });

const REASK_AFTER_EVENTS = 200;

export function stateCarrier(agent: Agent, changed: (change: string) => boolean) {
  let refusal: string | undefined;
  let askedAt = 0;
  return {
    get refusal() {
      return refusal;
    },
    /** A refusal stands: not worth asking again yet. */
    get blocked() {
      return refusal !== undefined && workflowInfo().historyLength - askedAt < REASK_AFTER_EVENTS;
    },
    /** The state's JSON, checked as the new run would read it, when it can be carried; else undefined. */
    async canCarry(): Promise<string | undefined> {
      if (this.blocked) return undefined;
      const json = JSON.stringify(agent.toSnapshot());
      // The new run reads the state with the same checks as an import: never carry what it would refuse.
      // (Everything is checked as it enters the agent, so this is a last line of defence.)
      try {
        readSnapshot(JSON.parse(json));
      } catch (err) {
        askedAt = workflowInfo().historyLength;
        refusal = `The agent's state would not be readable in a new run (${(err as Error).message}), so it stays in this run. Export it and report this.`;
        log.error(refusal, { category: 'History' });
        return undefined;
      }
      const bytes = utf8Length(json);
      if (bytes <= MAX_INLINE_PAYLOAD_BYTES || !changed(STATE_SIZE_GUARD_PATCH)) return json;
      askedAt = workflowInfo().historyLength;
      if (decoded(await payloadLimits(), 'payloadLimits').offloading) {
        refusal = undefined;
        return json;
      }
      refusal =
        `The agent's state is ${(bytes / 1024 / 1024).toFixed(1)} MB, over Temporal's 2 MB payload limit, and its worker does not ` +
        'offload large payloads (LIVECONTEXT_OFFLOAD=0): it cannot continue as new, so it stays in this run, whose history ' +
        "keeps growing towards Temporal's limit. Turn offloading on for its workers.";
      log.warn(refusal, { category: 'History', bytes });
      return undefined;
    },
  };
}
