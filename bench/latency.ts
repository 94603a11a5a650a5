/**
 * latency: client-side time from input to answer (one `ask`), 1,000 sequential turns on one agent, interleaved
 * turn by turn with the bare workflow's; again with `modelCalls: 'local'` beside the bare workflow making its
 * model call as a local activity.
 */
import { untilServerQuiet } from './cpu-meter';
import { type Bench, type BenchResult, bothSides, percentile, progress, ratio, round, timed, withWorkers } from './support';
import { type TurnMark, type TurnProfile, turnProfile } from './turn-profile';

/**
 * The p99 is the 10th-slowest turn of 1,000: of 200 it was the second-slowest, and moved by 25 ms between
 * runs of this benchmark alone (48–74 ms, six runs on 2026-12-06).
 */
const TURNS = 1000;
const WARMUP = 5;

export async function latency(bench: Bench): Promise<BenchResult> {
  const { queues, agents, baseline, agentId, baselineId } = bothSides(bench, 'lat');

  /** One side's turns: samples and marks, filled turn by turn by `measurePair`. */
  const side = (name: string, ask: (text: string) => Promise<boolean>) => ({ name, ask, samples: [] as number[], marks: [] as TurnMark[] });
  type Side = ReturnType<typeof side>;
  const turn = async (s: Side, text: string) => {
    const sentAt = Date.now();
    const { ms, value } = await timed(() => s.ask(text));
    if (!value) throw new Error(`${s.name}: "${text}" was not answered`);
    return { sentAt, ms };
  };
  /**
   * Both sides' turns interleaved, turn by turn, the side that goes first alternating: each side meets the
   * same machine. Run one side after the other, the side that went first took whatever the benchmark
   * before left behind (the dev server still working through the throughput run's tasks).
   */
  const measurePair = async (a: Side, b: Side) => {
    for (let i = 1; i <= WARMUP; i++) for (const s of [a, b]) await turn(s, `warm-up ${i}`);
    for (let i = 1; i <= TURNS; i++) {
      for (const s of i % 2 ? [a, b] : [b, a]) {
        const mark = await turn(s, `question ${i}`);
        s.samples.push(mark.ms);
        s.marks.push(mark);
      }
    }
    progress(`latency: ${a.name} and ${b.name}, ${TURNS} turns each`);
    const figures = (s: Side) => ({
      turns: TURNS,
      p50Ms: round(percentile(s.samples, 50)),
      p99Ms: round(percentile(s.samples, 99)),
      meanMs: round(s.samples.reduce((x, y) => x + y, 0) / TURNS),
      marks: s.marks,
    });
    return [figures(a), figures(b)] as const;
  };

  return withWorkers(bench, queues, async () => {
    // What the benchmark before left the dev server doing is not counted against either side.
    const settled = await untilServerQuiet(60_000);
    if (!settled.quiet) progress(`latency: the dev server was still busy after ${settled.waitedMs} ms`);
    await agents.start(agentId, { model: 'scripted:instant' });
    await baseline.start(baselineId, { modelCallsPerTurn: 1, toolCallsPerTurn: 0 });
    const [lc, bl] = await measurePair(
      side('livecontext', async (text) => (await agents.ask(agentId, text)).status === 'answered'),
      side('baseline', async (text) => (await baseline.ask(baselineId, text)).status === 'answered'),
    );
    // The same with model calls as local activities, each side on an agent of its own.
    const [localId, localBaselineId] = [`${agentId}-local`, `${baselineId}-local`];
    await agents.start(localId, { model: 'scripted:instant', modelCalls: 'local' });
    await baseline.start(localBaselineId, { modelCallsPerTurn: 1, toolCallsPerTurn: 0, localModel: true });
    const [lcLocal, blLocal] = await measurePair(
      side('livecontext (local model calls)', async (text) => (await agents.ask(localId, text)).status === 'answered'),
      side('baseline (local model call)', async (text) => (await baseline.ask(localBaselineId, text)).status === 'answered'),
    );
    const profiles = {
      livecontext: await turnProfile(bench.client, agentId, lc.marks),
      baseline: await turnProfile(bench.baselineClient, baselineId, bl.marks),
    };
    const localProfiles = {
      livecontext: await turnProfile(bench.client, localId, lcLocal.marks),
      baseline: await turnProfile(bench.baselineClient, localBaselineId, blLocal.marks),
    };
    const { marks: _lcMarks, ...lcFigures } = lc;
    const { marks: _blMarks, ...blFigures } = bl;
    const { marks: _lcLocalMarks, ...lcLocalFigures } = lcLocal;
    const { marks: _blLocalMarks, ...blLocalFigures } = blLocal;
    return {
      table: `${profileTable(profiles)}\nWith local model calls (\`modelCalls: 'local'\`; the baseline's model call a local activity):\n\n${profileTable(localProfiles)}`,
      figures: {
        method: `client-side wall time of ask() (one update) per turn, ${TURNS} sequential turns on one workflow after ${WARMUP} warm-up turns, the two sides' turns interleaved (alternating which goes first), started once the dev server is quiet; nearest-rank percentiles`,
        livecontext: lcFigures,
        baseline: blFigures,
        turnProfile: {
          method:
            'per measured turn, its history events between send and answer (server timestamps, same clock); medians (p50Ms) and 99th percentiles (p99Ms) of each part',
          ...profiles,
        },
        ratioP50: ratio(lc.p50Ms, bl.p50Ms),
        ratioP99: ratio(lc.p99Ms, bl.p99Ms),
        localModelCalls: {
          method: "the same with `modelCalls: 'local'` (one agent) beside the bare workflow making its model call as a local activity (one workflow)",
          livecontext: lcLocalFigures,
          baseline: blLocalFigures,
          turnProfile: localProfiles,
          ratioP50: ratio(lcLocal.p50Ms, blLocal.p50Ms),
          ratioP99: ratio(lcLocal.p99Ms, blLocal.p99Ms),
        },
      },
      rows: [
        { figure: 'input→answer p50 (ms)', livecontext: lc.p50Ms, baseline: bl.p50Ms, ratio: ratio(lc.p50Ms, bl.p50Ms) },
        { figure: 'input→answer p99 (ms)', livecontext: lc.p99Ms, baseline: bl.p99Ms, ratio: ratio(lc.p99Ms, bl.p99Ms) },
        { figure: 'input→answer p50, local model calls (ms)', livecontext: lcLocal.p50Ms, baseline: blLocal.p50Ms, ratio: ratio(lcLocal.p50Ms, blLocal.p50Ms) },
        { figure: 'input→answer p99, local model calls (ms)', livecontext: lcLocal.p99Ms, baseline: blLocal.p99Ms, ratio: ratio(lcLocal.p99Ms, blLocal.p99Ms) },
      ],
    };
  });
}

/** Where a turn's wait goes, both sides (markdown): each part's p50 / p99. */
function profileTable(p: { livecontext: TurnProfile; baseline: TurnProfile }): string {
  const names = [...new Set([...Object.keys(p.livecontext.p50Ms), ...Object.keys(p.baseline.p50Ms)])];
  const one = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '—' : String(v));
  // A part only some turns have (a third workflow task: the archive's seal finishing) says in how many.
  const some = (side: TurnProfile, n: string) => (side.turnsWith[n] && side.turnsWith[n] < side.turns ? ` (${side.turnsWith[n]} turns)` : '');
  const cell = (side: TurnProfile, n: string) => `${one(side.p50Ms[n])} / ${one(side.p99Ms[n])}${some(side, n)}`;
  return [
    '| a turn, p50 / p99 | livecontext | baseline |',
    '|---|---:|---:|',
    `| events / workflow tasks / activities per turn | ${p.livecontext.eventsPerTurn} / ${p.livecontext.workflowTasksPerTurn} / ${p.livecontext.activitiesPerTurn} | ${p.baseline.eventsPerTurn} / ${p.baseline.workflowTasksPerTurn} / ${p.baseline.activitiesPerTurn} |`,
    ...names.map((n) => `| ${n} (ms) | ${cell(p.livecontext, n)} | ${cell(p.baseline, n)} |`),
    '',
  ].join('\n');
}
