/** The agent workflow's queries: its status, pages of its history, its pending tool calls, its snapshot and its archive index. */
import { setHandler } from '@temporalio/workflow';
import type { Agent, AgentStatus } from '../../agent/index';
import { pageEntries } from '../agent-views';
import type { ArchiveIndex } from '../../agent/archive';
import { archiveQuery, entriesQuery, pendingToolCallsQuery, snapshotQuery, stateQuery } from '../messages';

export function registerQueries(agent: Agent, status: () => AgentStatus): void {
  setHandler(stateQuery, status);
  setHandler(entriesQuery, (req) => pageEntries(agent.state.entries, req ?? {}));
  setHandler(pendingToolCallsQuery, () => agent.pendingToolCalls());
  setHandler(snapshotQuery, () => agent.toSnapshot());
  // AgentState.archive comes with sealing (the lead's part); until then no agent has one.
  setHandler(archiveQuery, () => (agent.state as { archive?: ArchiveIndex }).archive ?? null);
}
