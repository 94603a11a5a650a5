/**
 * longConversation: 100 model calls adding ~800 KB of text (~200k tokens: each answer ~8 KB), with the
 * default history budget, so the agent may continue as new. Total history over all runs, on both sides.
 */
import type { Client } from '@temporalio/client';
import { type Bench, type BenchResult, bothSides, historyBytesAllRuns, inputText, progress, ratio, withWorkers } from './support';

const CALLS = 100;
const ANSWER_BYTES = 8192;

export async function longConversation(bench: Bench): Promise<BenchResult> {
  const { queues, agents, baseline, agentId, baselineId } = bothSides(bench, 'long');

  /** CALLS sequential turns; then the history over all runs. */
  const converse = async (side: string, client: Client, id: string, ask: (text: string) => Promise<string | null>) => {
    let answered = 0;
    let answerChars = 0;
    for (let i = 1; i <= CALLS; i++) {
      const answer = await ask(inputText(i));
      if (answer !== null) {
        answered++;
        answerChars += answer.length;
      }
      if (i % 25 === 0) progress(`longConversation: ${side} ${i}/${CALLS}`);
    }
    return { ...(await historyBytesAllRuns(client, id)), answered, completed: answered === CALLS, answerChars };
  };

  return withWorkers(bench, queues, async () => {
    await agents.start(agentId, { model: 'scripted:long8k' }); // default historyBudgetBytes (8 MiB)
    await baseline.start(baselineId, { modelCallsPerTurn: 1, toolCallsPerTurn: 0 }); // the same default budget
    // Sizes, not times: both sides run at once.
    const [lc, bl] = await Promise.all([
      converse('livecontext', bench.client, agentId, async (text) => {
        const outcome = await agents.ask(agentId, text);
        return outcome.status === 'answered' ? outcome.answer.contents.join('') : null;
      }),
      converse('baseline', bench.baselineClient, baselineId, async (text) => {
        const outcome = await baseline.ask(baselineId, text);
        return outcome.status === 'answered' ? outcome.answer : null;
      }),
    ]);

    return {
      figures: {
        method:
          'total history bytes = sum over every run (client.workflow.list WorkflowId = id) of HistoryEvent.encode(e).finish().length over fetchHistory() events',
        workload: `${CALLS} turns, 1 model call each, ~200-byte input, ~${ANSWER_BYTES}-byte answer (~${Math.round((CALLS * ANSWER_BYTES) / 4 / 1000)}k tokens at 4 chars/token); default historyBudgetBytes (8 MiB)`,
        livecontext: lc,
        baseline: bl,
        note: 'Not a measurement: runtimes that put the whole transcript in every activity input were terminated at the 50 MB history limit part-way through such a workload (temporalio/sdk-python#1890).',
      },
      rows: [
        { figure: `total history bytes, ${CALLS} calls of ~8 KB (all runs)`, livecontext: lc.bytes, baseline: bl.bytes, ratio: ratio(lc.bytes, bl.bytes) },
        {
          figure: 'completed (all answered) / runs',
          livecontext: `${lc.completed ? 'yes' : 'no'} / ${lc.runs}`,
          baseline: `${bl.completed ? 'yes' : 'no'} / ${bl.runs}`,
        },
      ],
    };
  });
}
