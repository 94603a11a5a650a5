/**
 * MCP elicitation as a wait (agent/elicitations.ts): the activity running an MCP call opens the server's
 * question with an update and reads its answer with a query; people answer it with `answerWait` like any
 * other wait. An update rather than a signal, so the activity knows the question is open (or why it was
 * refused) and gets an answer given before, when a retried call asks the same question again.
 */
import { log, setHandler } from '@temporalio/workflow';
import type { Agent } from '../../agent/index';
import { elicitationQuery, openElicitationUpdate } from '../messages';
import { refusing } from './failures';
import type { RunControl } from './run-control';

/** Since this change the agent takes MCP servers' questions (elicitation) as waits. */
export const ELICITATION_WAITS_CHANGE = 'mcp-elicitation-waits';

export function registerElicitationHandlers(agent: Agent, run: RunControl, changed?: (change: string) => boolean): void {
  setHandler(
    openElicitationUpdate,
    run.counted((raw) => {
      changed?.(ELICITATION_WAITS_CHANGE); // marks the runs that opened such a wait; no older run ever got this update
      const e = agent.openElicitation(raw);
      log.debug(`elicitation ${e.waitId} ${e.answer ? 'asked again (answered already)' : 'open'}`, { category: 'Tools', toolCallId: e.toolCallId });
      return e;
    }),
    { validator: refusing((raw) => void agent.checkOpenElicitation(raw)) },
  );
  setHandler(elicitationQuery, (waitId) => agent.elicitation(waitId) ?? null);
}
