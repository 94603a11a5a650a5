/** The agent workflow's queries: its status, pages of its history, its pending tool calls and its snapshot. */
import { setHandler } from '@temporalio/workflow';
import type { Agent, AgentStatus } from '../../agent/index';
import { pageEntries } from '../agent-views';
import { archiveQuery, entriesQuery, pendingToolCallsQuery, snapshotQuery, stateQuery, turnOutcomeQuery } from '../messages';

export function registerQueries(agent: Agent, status: () => AgentStatus): void {
  setHandler(stateQuery, status);
  setHandler(entriesQuery, (req) => pageEntries(agent.state.entries, req ?? {}, agent.state.archive?.throughSeq, agent.state.visible));
  setHandler(archiveQuery, () => agent.state.archive ?? null);
  setHandler(pendingToolCallsQuery, () => agent.pendingToolCalls());
  setHandler(snapshotQuery, () => agent.toSnapshot());
  setHandler(turnOutcomeQuery, (inputSeq) => agent.turnOutcome(inputSeq) ?? null);
}
