/**
 * eventsPerTurn: Temporal history events and billable actions one turn adds, for a plain turn (input →
 * one model call → answer) and a tool turn (input → model → tool → model → answer), with the default
 * AgentClient, next to the baseline workflow. Every event is stored by the cluster, and actions are
 * what Temporal Cloud bills. Measured over turns 11–20 of one run, averaged.
 */
import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { type Bench, type BenchResult, bothSides, inputText, ratio, round, uniqueId, withWorkers } from './support';

const { EventType } = temporal.api.enums.v1;
type Event = temporal.api.history.v1.IHistoryEvent;
const FROM = 10;
const TO = 20;

/**
 * Events Temporal Cloud counts as actions (its pricing page): a workflow started, a signal or an update
 * received, an activity or local activity run, a timer, a search-attribute upsert, a child workflow
 * started, an external signal sent. Queries are actions too but leave no event: not counted here.
 */
export function isAction(e: Event): boolean {
  switch (e.eventType) {
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
    case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
    case EventType.EVENT_TYPE_TIMER_STARTED:
    case EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
    case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
    case EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
      return true;
    case EventType.EVENT_TYPE_MARKER_RECORDED:
      return e.markerRecordedEventAttributes?.markerName === 'core_local_activity';
    default:
      return false;
  }
}

async function events(client: Client, id: string): Promise<Event[]> {
  return (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
}

/** Events and actions per turn between turn FROM and TO, and which event types a turn adds. */
async function perTurn(client: Client, id: string, ask: (i: number) => Promise<unknown>) {
  for (let i = 1; i <= FROM; i++) await ask(i);
  const before = (await events(client, id)).length;
  for (let i = FROM + 1; i <= TO; i++) await ask(i);
  const added = (await events(client, id)).slice(before);
  const kinds: Record<string, number> = {};
  for (const e of added) {
    const name = EventType[e.eventType ?? 0].replace('EVENT_TYPE_', '');
    kinds[name] = round((kinds[name] ?? 0) + 1 / (TO - FROM), 1);
  }
  return { events: round(added.length / (TO - FROM), 1), actions: round(added.filter(isAction).length / (TO - FROM), 1), kinds };
}

export async function eventsPerTurn(bench: Bench): Promise<BenchResult> {
  const { queues, agents, baseline } = bothSides(bench, 'ept');
  return withWorkers(bench, queues, async () => {
    const sides = {} as Record<'plain' | 'tool', { livecontext: Awaited<ReturnType<typeof perTurn>>; baseline: Awaited<ReturnType<typeof perTurn>> }>;
    for (const [kind, model, calls] of [
      ['plain', 'scripted:instant', { modelCallsPerTurn: 1, toolCallsPerTurn: 0 }],
      ['tool', 'scripted:tool1k', { modelCallsPerTurn: 2, toolCallsPerTurn: 1 }],
    ] as const) {
      const agentId = uniqueId(`ept-${kind}`);
      const baselineId = uniqueId(`ept-${kind}-bl`);
      await agents.start(agentId, { model });
      await baseline.start(baselineId, { ...calls, historyBudgetBytes: 1024 * 1024 * 1024 });
      sides[kind] = {
        livecontext: await perTurn(bench.client, agentId, async (i) => {
          const outcome = await agents.ask(agentId, inputText(i));
          if (outcome.status !== 'answered') throw new Error(`turn ${i}: ${outcome.status}`);
        }),
        baseline: await perTurn(bench.baselineClient, baselineId, (i) => baseline.ask(baselineId, inputText(i))),
      };
    }
    return {
      figures: {
        method: `history events (and those Temporal Cloud bills as actions; queries not included) added by turns ${FROM + 1}-${TO}, per turn`,
        workload:
          'plain: ~200-byte input, one model call answering; tool: model call → one tool → model call. Default AgentClient (search attributes on, answers by reference).',
        ...sides,
      },
      rows: (['plain', 'tool'] as const).flatMap((kind) => [
        {
          figure: `history events per ${kind} turn`,
          livecontext: sides[kind].livecontext.events,
          baseline: sides[kind].baseline.events,
          ratio: ratio(sides[kind].livecontext.events, sides[kind].baseline.events),
        },
        {
          figure: `billable actions per ${kind} turn (without queries)`,
          livecontext: sides[kind].livecontext.actions,
          baseline: sides[kind].baseline.actions,
          ratio: ratio(sides[kind].livecontext.actions, sides[kind].baseline.actions),
        },
      ]),
    };
  });
}
