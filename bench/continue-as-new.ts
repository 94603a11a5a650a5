/**
 * continueAsNew: an agent with a 1,000-entry transcript (500 turns of input + answer, instant model, huge
 * budget) has its budget lowered below what its run has grown to, so the next step continues as new.
 * Measured at that boundary: wall time from sending one more input to the new run answering it, and
 * server-side the Started→Completed time of the workflow task that issued the continue-as-new (and of
 * the new run's first task). Baseline: the same for a baseline workflow carrying 1,000 trivial entries.
 * `--can-samples N` workflows per side (default 5; built concurrently, not timed); their boundaries are
 * timed one at a time, alternating sides.
 */
import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import {
  type Bench,
  type BenchResult,
  continueAsNewTaskMs,
  encodedSize,
  firstWorkflowTaskMs,
  percentile,
  progress,
  ratio,
  round,
  runIds,
  runTurns,
  timed,
  uniqueId,
  withWorkers,
  bothSides,
} from './support';

const TURNS = 500;
const HUGE_BUDGET = 1024 * 1024 * 1024;
const DEFAULT_SAMPLES = 5;

/** What the boundary looked like, read from the two runs' histories. */
async function boundary(client: Client, workflowId: string, runsBefore: number) {
  let runs = await runIds(client, workflowId);
  for (let i = 0; i < 50 && runs.length === runsBefore; i++) {
    await new Promise((r) => setTimeout(r, 100)); // visibility is eventually consistent
    runs = await runIds(client, workflowId);
  }
  if (runs.length !== runsBefore + 1) throw new Error(`${workflowId}: expected ${runsBefore + 1} runs, found ${runs.length}`);
  const oldEvents = (await client.workflow.getHandle(workflowId, runs[runs.length - 2]).fetchHistory()).events ?? [];
  const newEvents = (await client.workflow.getHandle(workflowId, runs[runs.length - 1]).fetchHistory()).events ?? [];
  const startPayloads = newEvents[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
  const carried = await decodeFromPayloadsAtIndex<{ snapshot?: { entries: unknown[] }; entries?: unknown[] }>(
    client.options.loadedDataConverter,
    0,
    startPayloads,
  );
  const ms = (x: number | null) => (x === null ? null : round(x));
  // The boundary as the server saw it: the old run's last events and the new run's first, in ms from the first of them.
  const shown = [...oldEvents.slice(-8), ...newEvents.slice(0, 16)];
  const at = (e: (typeof shown)[number]) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
  const timeline = shown.map((e) => `${round(at(e) - at(shown[0]))} ${temporal.api.enums.v1.EventType[e.eventType ?? 0]}`);
  return {
    timeline,
    entriesCarried: (carried.snapshot?.entries ?? carried.entries)?.length ?? null,
    continueAsNewTaskMs: ms(continueAsNewTaskMs(oldEvents)),
    newRunFirstTaskMs: ms(firstWorkflowTaskMs(newEvents)),
    oldRunHistoryBytes: encodedSize(oldEvents),
    /** The new run's WorkflowExecutionStarted event: the carried state as stored in history. */
    carriedStartEventBytes: encodedSize(newEvents.slice(0, 1)),
  };
}

/** Half of what the current run has grown to: passed now, far from reached by one more turn in a new run. */
async function budgetBelowCurrentRun(client: Client, workflowId: string): Promise<number> {
  const size = Number((await client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.historySizeBytes ?? 0);
  if (size < 64 * 1024) throw new Error(`${workflowId}: run history only ${size} bytes`);
  return Math.floor(size / 2);
}

type Boundary = Awaited<ReturnType<typeof boundary>> & { budgetSetTo: number; wallMs: number };

/** Lowers one workflow's budget, sends one more input and reads the boundary from history. */
async function crossBoundary(
  client: Client,
  id: string,
  configure: (budget: number) => Promise<unknown>,
  ask: () => Promise<{ status: string }>,
): Promise<Boundary> {
  const budgetSetTo = await budgetBelowCurrentRun(client, id);
  await configure(budgetSetTo);
  const runsBefore = (await runIds(client, id)).length;
  const wall = await timed(ask);
  if (wall.value.status !== 'answered') throw new Error(`${id}: the boundary turn ended ${wall.value.status}`);
  return { budgetSetTo, wallMs: round(wall.ms), ...(await boundary(client, id, runsBefore)) };
}

/** Medians of the timed figures, plus every sample. */
function summarize(samples: Boundary[]) {
  const median = (pick: (b: Boundary) => number | null) => {
    const values = samples.map(pick).filter((v): v is number => v !== null);
    return values.length === samples.length ? percentile(values, 50) : null;
  };
  return {
    wallMs: median((b) => b.wallMs),
    continueAsNewTaskMs: median((b) => b.continueAsNewTaskMs),
    newRunFirstTaskMs: median((b) => b.newRunFirstTaskMs),
    samples,
  };
}

export async function continueAsNew(bench: Bench): Promise<BenchResult> {
  const SAMPLES = Number(bench.options?.['can-samples'] ?? DEFAULT_SAMPLES);
  if (!Number.isInteger(SAMPLES) || SAMPLES < 1) throw new Error(`--can-samples ${bench.options?.['can-samples']}: give a whole number of at least 1`);
  const { queues, agents, baseline } = bothSides(bench, 'can');
  const agentIds = Array.from({ length: SAMPLES }, (_, i) => uniqueId(`can-agent-${i}`));
  const baselineIds = Array.from({ length: SAMPLES }, (_, i) => uniqueId(`can-baseline-${i}`));

  return withWorkers(bench, queues, async () => {
    // All transcripts are built at once (not timed).
    await Promise.all([
      ...agentIds.map(async (id, i) => {
        await agents.start(id, { model: 'scripted:instant', historyBudgetBytes: HUGE_BUDGET });
        await runTurns(`continueAsNew: livecontext build ${i + 1}/${SAMPLES}`, TURNS, (text) => agents.ask(id, text));
      }),
      ...baselineIds.map(async (id, i) => {
        await baseline.start(id, { modelCallsPerTurn: 1, toolCallsPerTurn: 0, historyBudgetBytes: HUGE_BUDGET });
        await runTurns(`continueAsNew: baseline build ${i + 1}/${SAMPLES}`, TURNS, (text) => baseline.ask(id, text));
      }),
    ]);

    // The boundaries, one at a time, alternating sides.
    const lcSamples: Boundary[] = [];
    const blSamples: Boundary[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const a = agentIds[i];
      lcSamples.push(
        await crossBoundary(
          bench.client,
          a,
          (budget) => agents.configure(a, { historyBudgetBytes: budget }),
          () => agents.ask(a, 'one more'),
        ),
      );
      const b = baselineIds[i];
      blSamples.push(
        await crossBoundary(
          bench.baselineClient,
          b,
          (budget) => baseline.configure(b, budget),
          () => baseline.ask(b, 'one more'),
        ),
      );
    }
    const lc = summarize(lcSamples);
    const bl = summarize(blSamples);
    progress(`continueAsNew: livecontext ${JSON.stringify(lcSamples.map((s) => [s.wallMs, s.continueAsNewTaskMs, s.newRunFirstTaskMs]))}`);
    progress(`continueAsNew: baseline ${JSON.stringify(blSamples.map((s) => [s.wallMs, s.continueAsNewTaskMs, s.newRunFirstTaskMs]))}`);

    return {
      figures: {
        method: `${SAMPLES} workflows per side, each built by ${TURNS} sequential turns (huge budget, one run); then configure(historyBudgetBytes = half the run's describe().historySizeBytes) and one more ask(): wallMs = that ask() (client side); continueAsNewTaskMs = eventTime(WorkflowTaskCompleted) − eventTime(its WorkflowTaskStarted) for the task named by the ContinuedAsNew event; newRunFirstTaskMs = the same for the new run's first task; figures are medians over the ${SAMPLES} workflows`,
        note: 'livecontext carries its working set (default 64 KiB of entries; older turns were sealed into the archive where the agent rested) and the archive index; payloads over 128 KiB would be offloaded by the codec to the blob store, so carriedStartEventBytes is the started event as stored',
        livecontext: lc,
        baseline: bl,
        ratioWall: ratio(lc.wallMs, bl.wallMs),
        ratioTask: ratio(lc.continueAsNewTaskMs, bl.continueAsNewTaskMs),
        ratioNewRunFirstTask: ratio(lc.newRunFirstTaskMs, bl.newRunFirstTaskMs),
      },
      rows: [
        {
          figure: `continue-as-new with 1,000 entries, input→answer in new run (ms, median of ${SAMPLES})`,
          livecontext: lc.wallMs,
          baseline: bl.wallMs,
          ratio: ratio(lc.wallMs, bl.wallMs),
        },
        {
          figure: 'continue-as-new, WFT that issued it, server-side (ms, median)',
          livecontext: lc.continueAsNewTaskMs,
          baseline: bl.continueAsNewTaskMs,
          ratio: ratio(lc.continueAsNewTaskMs, bl.continueAsNewTaskMs),
        },
        {
          figure: "continue-as-new, new run's first WFT, server-side (ms, median)",
          livecontext: lc.newRunFirstTaskMs,
          baseline: bl.newRunFirstTaskMs,
          ratio: ratio(lc.newRunFirstTaskMs, bl.newRunFirstTaskMs),
        },
      ],
    };
  });
}
