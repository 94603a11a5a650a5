/** throughput: 100 concurrent agents × 10 turns each (instant model, no tools): turns per second. */
import { type Bench, type BenchResult, agentClient, baselineClient, progress, ratio, round, sequentially, timed, uniqueId, withWorkers } from './support';

const AGENTS = 100;
const TURNS = 10;
/** Rounds of the three sides, interleaved; each side's best round is its figure (this machine is shared, and noisy). */
const ROUNDS = 2;

export async function throughput(bench: Bench): Promise<BenchResult> {
  const queues = { livecontext: uniqueId('tp-lc'), baseline: uniqueId('tp-bl') };
  const agents = agentClient(bench, queues.livecontext);
  // The same agents with the client's two trade-offs switched: what each costs, measured.
  const lean = agentClient(bench, queues.livecontext, { searchAttributes: false, answersInline: true });
  const baseline = baselineClient(bench, queues.baseline);
  const ids = (prefix: string) => Array.from({ length: AGENTS }, (_, i) => uniqueId(`${prefix}-${i}`));

  /** Starts every workflow first (not timed), then times AGENTS × TURNS turns run concurrently. */
  const measure = async (side: string, start: (id: string) => Promise<unknown>, ask: (id: string, i: number) => Promise<boolean>) => {
    const all = ids(`tp-${side}`);
    await Promise.all(all.map(start));
    let answered = 0;
    const { ms } = await timed(() =>
      Promise.all(
        all.map((id) =>
          sequentially(TURNS, async (i) => {
            if (await ask(id, i)) answered++;
          }),
        ),
      ),
    );
    progress(`throughput: ${side} ${answered} turns in ${Math.round(ms)} ms`);
    return { turns: answered, seconds: round(ms / 1000, 2), turnsPerSecond: round(answered / (ms / 1000), 1) };
  };

  type Round = Awaited<ReturnType<typeof measure>>;
  const best = (rounds: Round[]) => ({
    ...rounds.reduce((a, b) => (b.turnsPerSecond > a.turnsPerSecond ? b : a)),
    roundsTurnsPerSecond: rounds.map((r) => r.turnsPerSecond),
  });
  return withWorkers(bench, queues, async () => {
    // The three sides: the default client, the client with its trade-offs switched, the baseline.
    const sides: Array<[string, (id: string) => Promise<unknown>, (id: string, i: number) => Promise<boolean>]> = [
      ['livecontext', (id) => agents.start(id, { model: 'scripted:instant' }), async (id, i) => (await agents.ask(id, `question ${i}`)).status === 'answered'],
      ['livecontext-lean', (id) => lean.start(id, { model: 'scripted:instant' }), async (id, i) => (await lean.ask(id, `question ${i}`)).status === 'answered'],
      [
        'baseline',
        (id) => baseline.start(id, { modelCallsPerTurn: 1, toolCallsPerTurn: 0 }),
        async (id, i) => (await baseline.ask(id, `question ${i}`)).status === 'answered',
      ],
    ];
    const rounds: Round[][] = sides.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, [side, start, ask]] of sides.entries()) rounds[i].push(await measure(side, start, ask));
    }
    const [lc, leanResult, bl] = rounds.map(best);
    return {
      figures: {
        method: `${AGENTS} workflows started first (not timed), then each runs ${TURNS} sequential ask() turns, all concurrently; turns/s = answered turns / wall time; ${ROUNDS} rounds of the three sides interleaved, each side's best round reported`,
        livecontext: lc,
        livecontextWithoutSearchAttributesAnswersInline: leanResult,
        baseline: bl,
        ratio: ratio(lc.turnsPerSecond, bl.turnsPerSecond),
        leanRatio: ratio(leanResult.turnsPerSecond, bl.turnsPerSecond),
      },
      rows: [
        {
          figure: `turns/s, ${AGENTS} agents × ${TURNS} turns (best of ${ROUNDS})`,
          livecontext: lc.turnsPerSecond,
          baseline: bl.turnsPerSecond,
          ratio: ratio(lc.turnsPerSecond, bl.turnsPerSecond),
        },
        {
          figure: 'turns/s, client without search attributes, answers inline',
          livecontext: leanResult.turnsPerSecond,
          baseline: bl.turnsPerSecond,
          ratio: ratio(leanResult.turnsPerSecond, bl.turnsPerSecond),
        },
      ],
    };
  });
}
