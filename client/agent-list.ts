/** The agents of a namespace, through Temporal visibility, each with its run state in the words every view uses. */
import type { Client } from '@temporalio/client';
import { splitModelName } from '../agent/index';
import type { agentWorkflow } from '../workflows/index';
import { WORKFLOW_TYPE, MODEL_ATTRIBUTE, PROVIDER_ATTRIBUTE, RUN_STATE_ATTRIBUTE, stateQuery } from '../workflows/messages';
import { LISTED_RUNNING, listedRunStateWord, runStateWord } from './state-view';

export interface AgentSummary {
  agentId: string;
  status: string;
  startTime: string;
  runState: string | null;
  model: string | null;
  provider: string | null;
  /**
   * The run state in the words every view uses (client/state-view.ts): from `runState` while it runs,
   * else how the workflow ended; for a running agent without the search attribute, from its state query.
   */
  stateWord: string;
}

/** Running agents without the run-state search attribute whose state a list asks for (the rest read `running`). */
const LIST_STATE_QUERIES = 20;
/** How long a list waits for such an agent's answer (an agent without a worker does not answer). */
const LIST_STATE_QUERY_MS = 3_000;

/**
 * Agents in this namespace (running ones by default), newest first. Run state, model and provider come
 * from the search attributes when the namespace has them.
 */
export async function listAgents(client: Client, options: { all?: boolean; limit?: number } = {}): Promise<AgentSummary[]> {
  const query = `WorkflowType = '${WORKFLOW_TYPE}'${options.all ? '' : " AND ExecutionStatus = 'Running'"}`;
  const out: AgentSummary[] = [];
  for await (const wf of client.workflow.list({ query })) {
    const sa = wf.typedSearchAttributes;
    out.push({
      agentId: wf.workflowId,
      status: wf.status.name,
      startTime: wf.startTime.toISOString(),
      runState: sa.get(RUN_STATE_ATTRIBUTE) ?? null,
      model: sa.get(MODEL_ATTRIBUTE) ?? null,
      provider: sa.get(PROVIDER_ATTRIBUTE) ?? null,
      stateWord: listedRunStateWord(sa.get(RUN_STATE_ATTRIBUTE) ?? null, wf.status.name),
    });
    if (out.length >= (options.limit ?? 1000)) break;
  }
  await unlistedStates(client, out);
  return out;
}

/**
 * Agents started without the search attributes (sub-agents are child workflows started without them;
 * namespaces without them) would read `running` whatever they do: the first few are asked their state,
 * briefly, so the list says what `state` says (an agent blocked by an error reads so in both).
 */
async function unlistedStates(client: Client, list: AgentSummary[]): Promise<void> {
  const unlisted = list.filter((a) => a.stateWord === LISTED_RUNNING).slice(0, LIST_STATE_QUERIES);
  await Promise.all(
    unlisted.map(async (a) => {
      try {
        const s = await client.connection.withDeadline(Date.now() + LIST_STATE_QUERY_MS, () =>
          client.workflow.getHandle<typeof agentWorkflow>(a.agentId).query(stateQuery),
        );
        a.stateWord = runStateWord(s);
        a.model ??= s.config.model;
        a.provider ??= splitModelName(s.config.model).provider;
      } catch {
        // no answer in time (no worker, a long replay): it stays `running`
      }
    }),
  );
}
