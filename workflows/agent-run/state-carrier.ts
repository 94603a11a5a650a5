/**
 * Whether this run may continue as new with the agent's state, and the state to carry. A state over the
 * inline payload limit needs a worker that offloads payloads: without one Temporal refuses the
 * continue-as-new command and terminates the agent. Then the agent stays in this run instead, and its
 * status says why; its workers are asked again every REASK_AFTER_EVENTS events, so turning offloading on
 * lets it move on. With the archive the state is a bounded working set, so this is rare.
 */
import { log, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../../activities/index';
import { type Agent, type AgentSnapshot, MAX_INLINE_PAYLOAD_BYTES, checkCarried, utf8Length } from '../../agent/index';
import { STATE_SIZE_GUARD_PATCH } from '../run-changes';
import { decoded } from './failures';

const { payloadLimits } = proxyLocalActivities<ReturnType<typeof createActivities>>({ startToCloseTimeout: '10 seconds' });

const REASK_AFTER_EVENTS = 200;

export function stateCarrier(agent: Agent, changed: (change: string) => boolean) {
  let refusal: string | undefined;
  let askedAt = 0;
  const refuse = (why: string) => {
    askedAt = workflowInfo().historyLength;
    refusal = why;
  };
  return {
    get refusal() {
      return refusal;
    },
    /** A refusal stands: not worth asking again yet. */
    get blocked() {
      return refusal !== undefined && workflowInfo().historyLength - askedAt < REASK_AFTER_EVENTS;
    },
    /**
     * Whether the state's size lets it be carried: within the inline limit, or the worker offloads. The
     * size is the working entries' (measured once each, as they entered) plus the rest's JSON, so no
     * full serialization is made here: Temporal makes the one that counts.
     */
    async canCarry(): Promise<boolean> {
      if (this.blocked) return false;
      const rest = agent.toSnapshot();
      const bytes = agent.state.workingBytes() + utf8Length(JSON.stringify({ ...rest, entries: [] }));
      if (bytes <= MAX_INLINE_PAYLOAD_BYTES || !changed(STATE_SIZE_GUARD_PATCH)) return true;
      askedAt = workflowInfo().historyLength;
      if (decoded(await payloadLimits(), 'payloadLimits').offloading) {
        refusal = undefined;
        return true;
      }
      refuse(
        `The agent's state is ${(bytes / 1024 / 1024).toFixed(1)} MB, over Temporal's 2 MB payload limit, and its worker does not ` +
          'offload large payloads (LIVECONTEXT_OFFLOAD=0): it cannot continue as new, so it stays in this run, whose history ' +
          "keeps growing towards Temporal's limit. Turn offloading on for its workers.",
      );
      log.warn(refusal!, { category: 'History', bytes });
      return false;
    },
    /**
     * The state to carry, checked as the new run would read it (which then takes it as checked), or
     * undefined when it would be refused. Call it with no await before the continue-as-new, so no handler
     * changes the state in between. (Everything is checked as it enters the agent: a last line of defence.)
     */
    carried(): AgentSnapshot | undefined {
      const snapshot = agent.toSnapshot();
      try {
        checkCarried(snapshot);
        return snapshot;
      } catch (err) {
        refuse(`The agent's state would not be readable in a new run (${(err as Error).message}), so it stays in this run. Export it and report this.`);
        log.error(refusal!, { category: 'History' });
        return undefined;
      }
    },
  };
}
