/**
 * lifetime (`npm run bench -- lifetime`): what an agent costs as it ages. A young agent (offline demo
 * model, three turns) is exported; its turns are repeated to make old agents of 1,000, 100,000 and
 * 1,000,000 entries, and of 100,000 entries of ~4 KB each; each is imported onto a worker process of
 * its own and measured the same way (lifetime-agent.ts), side by side with the 1,000-entry agent.
 *
 * Options: `--sizes 1000,100000,1000000,100000x4k` (entry counts; `xKk` pads each entry to ~K KiB; the
 * first size is the one every figure is compared with), `--turns 20` (turns timed for the p50),
 * `--limit 120` (seconds one turn, import or export may take before its size is reported as not finishing).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { AgentSnapshot } from '../agent/index';
import { type LifetimeOptions, type SizeFigures, cli, measureOldAgent } from './lifetime-agent';
import { DEFAULT_SIZES, type SizeSpec, parseSizes, writeGrownSnapshot } from './lifetime-snapshot';
import { lifetimeRows, lifetimeTable } from './lifetime-table';
import { type Bench, type BenchResult, agentClient, livecontextWorker, progress, uniqueId } from './support';

const YOUNG_TURNS = ['hello', 'remember I like tea', 'what can you do?'];
const ROOT = path.join(__dirname, '..');

function option(bench: Bench, name: string, fallback: string): string {
  return bench.options?.[name] ?? fallback;
}

/** The young agent, exported by the CLI as a user would: three turns with the offline demo model. */
async function youngAgent(bench: Bench, dir: string): Promise<{ file: string; snapshot: AgentSnapshot }> {
  const taskQueue = uniqueId('life-young');
  const agents = agentClient(bench, taskQueue);
  const id = uniqueId('life-young');
  const worker = await livecontextWorker(bench, taskQueue);
  const file = path.join(dir, 'young.json');
  await worker.runUntil(async () => {
    await agents.start(id, { model: 'demo:offline' });
    for (const text of YOUNG_TURNS) {
      const outcome = await agents.ask(id, text);
      if (outcome.status !== 'answered') throw new Error(`the young agent's turn "${text}" ended ${outcome.status}`);
    }
    await cli(['export', id, '--out', file], taskQueue, bench.env.address, 120_000);
  });
  await bench.client.workflow.getHandle(id).terminate('exported');
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as AgentSnapshot;
  if (!Array.isArray(snapshot.entries)) throw new Error(`${file}: not a snapshot with entries; the benchmark grows version-1 snapshots`);
  return { file, snapshot };
}

export async function lifetime(bench: Bench): Promise<BenchResult> {
  const sizes = parseSizes(option(bench, 'sizes', DEFAULT_SIZES));
  const o: Omit<LifetimeOptions, 'bundlePath'> = {
    turns: Number(option(bench, 'turns', '20')),
    limitMs: Number(option(bench, 'limit', '120')) * 1000,
    canSamples: Number(option(bench, 'can-samples', '5')),
  };
  if (!(o.turns >= 1) || !(o.limitMs >= 1000) || !Number.isInteger(o.canSamples) || o.canSamples < 1)
    throw new Error('--turns and --can-samples must be at least 1, and --limit at least 1 (seconds)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'livecontext-bench-lifetime-'));
  try {
    // The CLI runs compiled code: build it now, not inside a timed import.
    const built = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'ensure-build.cjs')], { cwd: ROOT, stdio: ['ignore', 2, 2] });
    if (built.status !== 0) throw new Error('scripts/ensure-build.cjs failed');
    const bundlePath = path.join(dir, 'livecontext.js');
    writeFileSync(bundlePath, bench.livecontextBundle.code);
    const young = await youngAgent(bench, dir);
    progress(`lifetime: the young agent has ${young.snapshot.entries.length} entries`);

    const measured: Array<{ size: SizeSpec; figures: SizeFigures }> = [];
    for (const size of sizes) {
      const file = path.join(dir, `${size.key}.json`);
      const t0 = performance.now();
      const figures: SizeFigures = { snapshotFile: writeGrownSnapshot(young.snapshot, size, file) };
      progress(
        `lifetime: ${size.label}: snapshot of ${figures.snapshotFile!.entries} entries, ${figures.snapshotFile!.bytes} bytes, written in ${Math.round(performance.now() - t0)} ms`,
      );
      try {
        await measureOldAgent(bench, (q) => agentClient(bench, q), young.file, file, { ...o, bundlePath }, figures);
      } finally {
        rmSync(file, { force: true });
      }
      measured.push({ size, figures });
    }
    const table = lifetimeTable(measured);
    progress(`lifetime:\n${table}`);
    return {
      figures: {
        method:
          `a young agent (offline demo model, turns ${JSON.stringify(YOUNG_TURNS)}) exported with \`livecontext export\`; for each size its turns repeated with fresh seqs, input numbers and tool call ids to N entries (entries padded to ~K KiB for NxKk) and written as a version-1 snapshot; ` +
          `then on a fresh task queue and a worker process of its own (prebuilt bundle; a young agent imported and answered first, to warm it): importMs = \`livecontext import\` wall time; firstTurnAfterImportMs = the first ask(); ` +
          `inputToAnswerP50Ms = median of ${o.turns} more ask()s; rssPerAgentMiB = the worker's VmRSS after them minus before the import (before: after a young agent took as many turns and the RSS settled twice; each settled: three rounds of a full collection of the worker's main-thread heap and 6 s, the median of the last 3 reads), peakAboveBeforeMiB = its VmHWM then minus the same before; exportMs = \`livecontext export --out\` wall time; ` +
          `recovery = SIGKILL the worker, spawn a new one and ask at once: spawn → answer, and newWorkerFirstTaskMs = WorkflowTaskStarted→Completed (event times) of the first task completed after the kill; ` +
          `continueAsNew, ${o.canSamples} boundaries (medians): configure(historyBudgetBytes = half the imported run's historySizeBytes; later ones: half of what 4 more turns added to the run) and one more ask(): continueAsNewTaskMs = the task named by the ContinuedAsNew event, newRunFirstTaskMs = the new run's first task, wallMs = that ask(); ` +
          `every wait bounded by ${o.limitMs / 1000} s (import and export: one more second per MB of snapshot): a size that does not answer in time is reported with its workflow task's attempts and last failure, and the remaining figures of that size are not measured`,
        sizes: measured.map(({ size, figures }) => ({ size: size.label, ...figures })),
        table,
      },
      rows: lifetimeRows(measured),
      table,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
