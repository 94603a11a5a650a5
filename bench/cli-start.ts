/**
 * cliStart: wall time of the `livecontext` CLI as a user runs it — `--help`, `list --json` and
 * `state AGENT --json` against the running server (an agent with a live worker) — each a new process,
 * beside a bare `node -e 0` started the same way (what no CLI can go below) and one round trip to the
 * server (a warm client's describe of the same agent, measured in this process between the runs). The
 * goal (issue 31): list and state within 2 × `node -e 0` + one round trip. The commands are run in turn,
 * round after round, so that the machine's load falls on each alike.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { type Bench, type BenchResult, agentClient, livecontextWorker, percentile, progress, ratio, round, uniqueId } from './support';

const RUNS = 10;
const BIN = path.resolve(__dirname, '../bin/livecontext.js');

function wallMs(args: string[], env: NodeJS.ProcessEnv): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.split('\n')[0]}`);
  return ms;
}

export async function cliStart(bench: Bench): Promise<BenchResult> {
  const taskQueue = uniqueId('cli-start');
  const agentId = uniqueId('cli-agent');
  const agents = agentClient(bench, taskQueue);
  const worker = await livecontextWorker(bench, taskQueue);
  const samples = { bare: [] as number[], help: [] as number[], list: [] as number[], state: [] as number[], roundTrip: [] as number[] };
  await worker.runUntil(async () => {
    await agents.start(agentId, { model: 'scripted:instant' });
    await agents.ask(agentId, 'hello');
    const env = { ...process.env, TEMPORAL_ADDRESS: bench.env.address, LIVECONTEXT_TASK_QUEUE: taskQueue };
    const handle = bench.client.workflow.getHandle(agentId);
    for (let i = 0; i <= RUNS; i++) {
      // spawnSync would block the worker in this process, which `state` needs: it runs asynchronously.
      const r = {
        bare: wallMs(['-e', '0'], env),
        help: wallMs([BIN, '--help'], env),
        list: wallMs([BIN, 'list', '--json'], env),
        state: await stateRun(env, agentId),
        roundTrip: await oneRoundTrip(() => handle.describe()),
      };
      if (i === 0) continue; // the first round warms the file cache
      for (const k of Object.keys(r) as Array<keyof typeof r>) samples[k].push(r[k]);
    }
  });
  progress(`cliStart: ${RUNS} rounds`);
  const p50 = (s: number[]) => round(percentile(s, 50));
  const goal = round(2 * p50(samples.bare) + p50(samples.roundTrip));
  return {
    figures: {
      method:
        `wall time of a new process, median of ${RUNS} rounds after one warm-up (bare node, --help, list --json, state --json in turn); ` +
        'round trip: a warm client describing the same agent; goal: 2 × `node -e 0` + one round trip',
      bareNodeP50Ms: p50(samples.bare),
      roundTripP50Ms: p50(samples.roundTrip),
      goalMs: goal,
      helpP50Ms: p50(samples.help),
      listJsonP50Ms: p50(samples.list),
      stateJsonP50Ms: p50(samples.state),
    },
    rows: [
      {
        figure: '`livecontext --help` (ms, p50)',
        livecontext: p50(samples.help),
        baseline: p50(samples.bare),
        ratio: ratio(p50(samples.help), p50(samples.bare)),
      },
      {
        figure: '`livecontext list --json` (ms, p50; baseline `node -e 0`)',
        livecontext: p50(samples.list),
        baseline: p50(samples.bare),
        ratio: ratio(p50(samples.list), p50(samples.bare)),
      },
      {
        figure: '`livecontext state AGENT --json` (ms, p50; baseline `node -e 0`)',
        livecontext: p50(samples.state),
        baseline: p50(samples.bare),
        ratio: ratio(p50(samples.state), p50(samples.bare)),
      },
      {
        figure: '`list --json` against the goal, 2 × `node -e 0` + one round trip (ms)',
        livecontext: p50(samples.list),
        baseline: goal,
        ratio: ratio(p50(samples.list), goal),
      },
      {
        figure: '`state AGENT --json` against the goal, 2 × `node -e 0` + one round trip (ms)',
        livecontext: p50(samples.state),
        baseline: goal,
        ratio: ratio(p50(samples.state), goal),
      },
    ],
  };
}

/** `state --json` in a child process that does not block this one (the agent's worker runs here). */
async function stateRun(env: NodeJS.ProcessEnv, agentId: string): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, 'state', agentId, '--json'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`state exited ${code}: ${stderr.split('\n')[0]}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function oneRoundTrip(call: () => Promise<unknown>): Promise<number> {
  await call(); // warm: the connection is open, the call's code loaded
  const started = process.hrtime.bigint();
  await call();
  return Number(process.hrtime.bigint() - started) / 1e6;
}
