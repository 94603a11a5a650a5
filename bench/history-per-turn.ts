/**
 * historyBytesPerTurn: history bytes one turn adds, at turn 10 and at turn 200, on both sides. A turn
 * is a ~200-byte input, a model call that asks for one tool, the tool, and a model call answering ~1 KB.
 * Linear history ⇒ turn200/turn10 ≈ 1; a runtime that re-sends the transcript grows with the turn.
 */
import { type Bench, type BenchResult, bothSides, historyBytes, inputText, progress, ratio, runIds, withWorkers } from './support';

const TURNS = 200;
const SAMPLE_AT = [10, TURNS];

export async function historyPerTurn(bench: Bench): Promise<BenchResult> {
  const { queues, agents, baseline, agentId, baselineId } = bothSides(bench, 'hpt');

  /** Runs TURNS turns; returns the bytes added by each sampled turn. */
  const measure = async (side: string, ask: (i: number) => Promise<unknown>, bytesNow: () => Promise<number>) => {
    const added: Record<number, number> = {};
    let before = 0;
    for (let turn = 1; turn <= TURNS; turn++) {
      if (SAMPLE_AT.includes(turn)) before = await bytesNow();
      await ask(turn);
      if (SAMPLE_AT.includes(turn)) added[turn] = (await bytesNow()) - before;
      if (turn % 50 === 0) progress(`historyBytesPerTurn: ${side} turn ${turn}/${TURNS}`);
    }
    return { turn10: added[10], turn200: added[TURNS], ratio: ratio(added[TURNS], added[10]), totalAfter200: await bytesNow() };
  };

  return withWorkers(bench, queues, async () => {
    await agents.start(agentId, { model: 'scripted:tool1k', historyBudgetBytes: 1024 * 1024 * 1024 });
    await baseline.start(baselineId, { modelCallsPerTurn: 2, toolCallsPerTurn: 1, historyBudgetBytes: 1024 * 1024 * 1024 });
    // Sizes, not times: both sides run at once.
    const [lc, bl] = await Promise.all([
      measure(
        'livecontext',
        async (i) => {
          const outcome = await agents.ask(agentId, inputText(i));
          if (outcome.status !== 'answered') throw new Error(`turn ${i}: ${outcome.status}`);
        },
        () => historyBytes(bench.client, agentId),
      ),
      measure(
        'baseline',
        (i) => baseline.ask(baselineId, inputText(i)),
        () => historyBytes(bench.baselineClient, baselineId),
      ),
    ]);
    const runs = { livecontext: (await runIds(bench.client, agentId)).length, baseline: (await runIds(bench.baselineClient, baselineId)).length };

    return {
      figures: {
        method: 'sum of HistoryEvent.encode(e).finish().length over handle.fetchHistory() events; bytes after turn N minus bytes after turn N-1',
        workload:
          'livecontext: ~200-byte input; model call → 1 bench_echo tool call → model call answering ~1 KB; historyBudgetBytes 1 GiB. Baseline: the same input; fakeModel, fakeTool, fakeModel returning 2–4-byte strings',
        livecontext: { ...lc, runs: runs.livecontext },
        baseline: { ...bl, runs: runs.baseline },
      },
      rows: [
        { figure: 'history bytes added by turn 10', livecontext: lc.turn10, baseline: bl.turn10, ratio: ratio(lc.turn10, bl.turn10) },
        { figure: 'history bytes added by turn 200', livecontext: lc.turn200, baseline: bl.turn200, ratio: ratio(lc.turn200, bl.turn200) },
        { figure: 'turn200 / turn10 (≈1 = linear history)', livecontext: lc.ratio, baseline: bl.ratio },
      ],
    };
  });
}
