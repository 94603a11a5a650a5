/**
 * The run state's words (the vocabulary of every view, see state-view.ts) for a queried and a listed
 * agent: apart from state-view.ts, so that the CLI's quick reads show them without loading the agent core.
 */
import type { AgentStatus } from '../workflows/messages';

export const RunStateWords = {
  waitingInput: 'waiting for input',
  working: 'working',
  waitingApproval: 'waiting for approval',
  /** A tool call's outcome is unknown (its worker died mid-run): `livecontext resolve` moves it on. */
  waitingResolution: 'waiting for a resolution',
  blockedByError: 'blocked by an error',
  stopping: 'stopping',
  stopped: 'stopped',
} as const;
export type RunStateWord = (typeof RunStateWords)[keyof typeof RunStateWords];

/** The run state of a running agent (from the `state` query), in the vocabulary. */
export function runStateWord(s: Pick<AgentStatus, 'blockedOn' | 'stopping'>): RunStateWord {
  if (s.stopping) return RunStateWords.stopping;
  switch (s.blockedOn) {
    case 'input':
      return RunStateWords.waitingInput;
    case 'approval':
      return RunStateWords.waitingApproval;
    case 'unknown_outcome':
      return RunStateWords.waitingResolution;
    case 'error':
      return RunStateWords.blockedByError;
    default:
      return RunStateWords.working;
  }
}

/**
 * The run state of a listed agent: its LivecontextRunState search attribute (null where the namespace
 * lacks it) while the workflow runs, else how the workflow ended.
 */
/** A running agent whose run state visibility does not hold. */
export const LISTED_RUNNING = 'running';

export function listedRunStateWord(runStateAttribute: string | null, executionStatus: string): string {
  switch (executionStatus) {
    case 'RUNNING':
      break;
    case 'COMPLETED':
      return RunStateWords.stopped;
    case 'CONTINUED_AS_NEW':
      return 'continued in a new run';
    case 'TIMED_OUT':
      return 'ended: timed out';
    default:
      return `ended: ${executionStatus.toLowerCase()}`; // failed, terminated, canceled
  }
  switch (runStateAttribute) {
    case 'WaitingInput':
      return RunStateWords.waitingInput;
    case 'WaitingApproval':
      return RunStateWords.waitingApproval;
    case 'WaitingResolution':
      return RunStateWords.waitingResolution;
    case 'BlockedOnError':
      return RunStateWords.blockedByError;
    case 'Working':
      return RunStateWords.working;
    default:
      return LISTED_RUNNING; // no search attribute: the agent was started without them (see AgentClient.list)
  }
}
