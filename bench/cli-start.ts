/**
 * cliStart: wall time of the `livecontext` CLI as a user runs it — `--help`, and `list --json` against
 * the running server — each a new process, against a bare `node` process started the same way as the
 * baseline (what no CLI can go below).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { type Bench, type BenchResult, percentile, progress, ratio, round } from './support';

const RUNS = 10;
const BIN = path.resolve(__dirname, '../bin/livecontext.js');

function wallMs(args: string[], env: NodeJS.ProcessEnv): number[] {
  const samples: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const started = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.split('\n')[0]}`);
    if (i > 0) samples.push(ms); // the first run warms the file cache
  }
  return samples;
}

export async function cliStart(bench: Bench): Promise<BenchResult> {
  const env = { ...process.env, TEMPORAL_ADDRESS: bench.env.address };
  const bare = wallMs(['-e', '0'], env);
  const help = wallMs([BIN, '--help'], env);
  const list = wallMs([BIN, 'list', '--json'], env);
  progress(`cliStart: ${RUNS} runs each`);
  const p50 = (s: number[]) => round(percentile(s, 50));
  return {
    figures: {
      method: `wall time of a new process, median of ${RUNS} runs after one warm-up; baseline: \`node -e 0\``,
      bareNodeP50Ms: p50(bare),
      helpP50Ms: p50(help),
      listJsonP50Ms: p50(list),
    },
    rows: [
      { figure: '`livecontext --help` (ms, p50)', livecontext: p50(help), baseline: p50(bare), ratio: ratio(p50(help), p50(bare)) },
      { figure: '`livecontext list --json` (ms, p50)', livecontext: p50(list), baseline: p50(bare), ratio: ratio(p50(list), p50(bare)) },
    ],
  };
}
