/**
 * `npm run bench`: one Temporal dev server, every benchmark side by side with its baseline, a markdown
 * table on stdout, all figures in bench/results/latest.json and the table in bench/results/latest.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { livecontextDataConverter } from '../common/codec/data-converter';
import { freePort } from '../common/ports';
import { SHARED_MODULES_PATH, WORKFLOWS_PATH } from '../worker/create-worker';
import { DEV_SERVER_DYNAMIC_CONFIG, DEV_SERVER_SQLITE_PRAGMAS, devServerSettingFlags } from '../worker/dev-server';
import { SEARCH_ATTRIBUTES } from '../workflows/messages';
import { cliStart } from './cli-start';
import { continueAsNew } from './continue-as-new';
import { eventsPerTurn } from './events-per-turn';
import { firstToken } from './first-token';
import { historyPerTurn } from './history-per-turn';
import { latency } from './latency';
import { lifetime } from './lifetime';
import { longConversation } from './long-conversation';
import { recovery } from './recovery';
import { scale } from './scale';
import { streamingCost } from './streaming-cost';
import { type Bench, type BenchResult, type Row, progress } from './support';
import { throughput } from './throughput';

const BENCHMARKS: Array<[string, (bench: Bench) => Promise<BenchResult>]> = [
  // First: `list` reads every running agent of the namespace, and asks those without a run-state attribute
  // (the throughput bench's lean client starts such agents, and its worker is gone after it) for their state
  // for up to 3 s. After the others it measured their leftovers, not the CLI's start (2.4 s on 2026-11-27).
  ['cliStart', cliStart],
  ['historyBytesPerTurn', historyPerTurn],
  ['eventsPerTurn', eventsPerTurn],
  ['longConversation', longConversation],
  ['throughput', throughput],
  // After the throughput benchmark, as in every run quoted in docs/benchmarks.md. Run first instead (2026-12-06
  // 16:14), on a fresh dev server, it gave no lower p99: 89.8 ms against the bare workflow's 69.1.
  ['latency', latency],
  ['continueAsNew', continueAsNew],
  ['recovery', recovery],
  ['streamingCost', streamingCost],
  ['firstToken', firstToken],
  ['scale', scale], // last: the longest
];

/** Run only when named (`npm run bench -- lifetime`): long, and measured against itself, not the baseline. */
const ON_REQUEST: Array<[string, (bench: Bench) => Promise<BenchResult>]> = [['lifetime', lifetime]];

/** Benchmark names, and `--name value` options (passed to the benchmarks as bench.options). */
function commandLine(args: string[]): { names: string[]; options: Record<string, string> } {
  const names: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const flag = /^--([\w-]+)(?:=(.*))?$/.exec(args[i]);
    if (!flag) names.push(args[i]);
    else if (flag[2] !== undefined) options[flag[1]] = flag[2];
    else options[flag[1]] = args[++i] ?? '';
  }
  return { names, options };
}

/**
 * Dev-server settings, the same for both sides (BENCH_SERVER_DEFAULTS=1 runs the server as it ships):
 * - Temporal suggests continue-as-new at 50,000 events instead of 4,096. Otherwise the agent and the
 *   baseline both continue as new after ~200 turns whatever their budget, and the long single runs that
 *   historyBytesPerTurn, continueAsNew and recovery are about would not exist.
 * - What `livecontext dev` and `npm start` set (DEV_SERVER_DYNAMIC_CONFIG): eager activity execution,
 *   eager workflow start and the transfer queue's read rate, so the figures are those of the server a user runs.
 */
const SERVER_SETTINGS = ['limit.historyCount.suggestContinueAsNew=50000', ...DEV_SERVER_DYNAMIC_CONFIG];

const quietLogger = { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never;

async function main(): Promise<number> {
  const t0 = Date.now();
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'livecontext-bench-'));
  process.env.LIVECONTEXT_BLOB_DIR ??= path.join(tmp, 'blobs'); // the offload codec's store, shared by worker and client
  const cli = process.env.TEMPORAL_CLI_PATH;
  const serverSettings = process.env.BENCH_SERVER_DEFAULTS === '1' ? [] : SERVER_SETTINGS;
  // Its data goes to a database file with the SQLite settings `livecontext dev` gives its own: a server kept
  // in memory answered a plain turn ~12 ms sooner than the file `livecontext dev` writes to.
  const sqlitePragmas = process.env.BENCH_SERVER_DEFAULTS === '1' ? [] : DEV_SERVER_SQLITE_PRAGMAS;
  const { names: only, options } = commandLine(process.argv.slice(2)); // `npm run bench -- latency throughput` runs just those
  const unknown = only.filter((n) => ![...BENCHMARKS, ...ON_REQUEST].some(([name]) => name === n));
  if (unknown.length) throw new Error(`no benchmark named ${unknown.join(', ')}; there are ${[...BENCHMARKS, ...ON_REQUEST].map(([n]) => n).join(', ')}`);
  const selected = only.length ? [...BENCHMARKS, ...ON_REQUEST].filter(([name]) => only.includes(name)) : BENCHMARKS;

  progress('starting the Temporal dev server');
  const metricsPort = await freePort(); // its request counters: what each side asks of the server per turn (throughput)
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ...(cli ? { executable: { type: 'existing-path' as const, path: cli } } : {}),
      dbFilename: path.join(tmp, 'temporal.db'),
      extraArgs: ['--log-level', 'error', '--metrics-port', String(metricsPort), ...devServerSettingFlags(serverSettings, sqlitePragmas)],
      searchAttributes: SEARCH_ATTRIBUTES, // as `livecontext dev` and `npm start` register them
    },
  });
  const native = await NativeConnection.connect({ address: env.address });
  const connection = await Connection.connect({ address: env.address });
  const results: Record<string, unknown> = {};
  const rows: Array<Row & { benchmark: string }> = [];
  const tables: string[] = [];
  let failed = 0;
  try {
    progress('bundling the livecontext and baseline workflows');
    const bench: Bench = {
      env,
      native,
      client: new Client({ connection, dataConverter: livecontextDataConverter() }),
      baselineClient: new Client({ connection }),
      // As createLivecontextWorker bundles it; BENCH_NO_SHARED_MODULES=1 measures the bundle without the shared agent core.
      livecontextBundle: await bundleWorkflowCode({
        workflowsPath: WORKFLOWS_PATH,
        preloadModules: process.env.BENCH_NO_SHARED_MODULES === '1' ? [] : [SHARED_MODULES_PATH],
        logger: quietLogger,
      }),
      baselineBundle: await bundleWorkflowCode({ workflowsPath: require.resolve('./baseline/workflows'), logger: quietLogger }),
      workspaceRoot: path.join(tmp, 'workspaces'),
      options,
      metricsPort,
    };
    for (const [name, run] of selected) {
      progress(`== ${name}`);
      const started = Date.now();
      try {
        const result = await run(bench);
        results[name] = { ...result.figures, seconds: Math.round((Date.now() - started) / 100) / 10 };
        rows.push(...result.rows.map((r) => ({ benchmark: name, ...r })));
        if (result.table) tables.push(`${name}:\n\n${result.table}`);
      } catch (err) {
        failed++;
        const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
        const reason = err instanceof Error ? `${err.message}${cause}` : String(err);
        if (err instanceof Error) console.error(err);
        progress(`${name} could not be measured: ${reason}`);
        results[name] = { livecontext: null, baseline: null, reason };
        rows.push({ benchmark: name, figure: `not measured: ${reason}`, livecontext: null, baseline: null });
      }
    }
  } finally {
    await native.close();
    await connection.close();
    await env.teardown();
  }

  const totalSeconds = Math.round((Date.now() - t0) / 1000);
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    temporalCli: cli ? execFileSync(cli, ['--version']).toString().trim() : 'downloaded by @temporalio/testing (version not read)',
    date: new Date().toISOString(),
  };
  const table = [markdownTable(rows), ...tables].join('\n');
  const machineLine =
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, Node ${machine.node}, ${machine.temporalCli}, ${machine.date}. ` +
    `Dev server settings: ${serverSettings.join(', ') || 'as shipped'}; data in a file, SQLite ${sqlitePragmas.join(', ') || 'as shipped'}. Total run time ${totalSeconds} s.`;
  // scripts/bench.mjs gives us the real stdout as fd 3 and sends fd 1 (which the dev server inherits and
  // prints its banner to) to stderr, so stdout carries the table alone.
  const out = process.env.LIVECONTEXT_BENCH_STDOUT_FD ? Number(process.env.LIVECONTEXT_BENCH_STDOUT_FD) : 1;
  writeSync(out, `${table}\n${machineLine}\n`);

  const dir = path.join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  // A run of some benchmarks never replaces the full results docs/benchmarks.md quotes; a benchmark run on
  // request alone and as it ships (lifetime, no options) has results of its own, which it quotes too.
  const alone = only.length === 1 && ON_REQUEST.some(([n]) => n === only[0]) && !Object.keys(options).length;
  const name = alone ? only[0] : only.length ? 'partial' : 'latest';
  const json = { machine, server: { devServerDynamicConfig: serverSettings, database: 'file', sqlitePragmas }, totalSeconds, ...results };
  writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(path.join(dir, `${name}.md`), `# livecontext benchmarks\n\n${table}\n${machineLine}\n\nAll figures and how each was measured: ${name}.json.\n`);
  progress(`done in ${totalSeconds} s; results in ${path.relative(process.cwd(), dir)}/${name}.{json,md}`);
  return failed ? 1 : 0;
}

function markdownTable(rows: Array<Row & { benchmark: string }>): string {
  const cell = (v: number | string | null | undefined) => (v === null || v === undefined ? '—' : typeof v === 'number' ? v.toLocaleString('en-US') : v);
  const lines = [
    '| benchmark | figure | livecontext | baseline | livecontext ÷ baseline |',
    '|---|---|---:|---:|---:|',
    ...rows.map((r) => `| ${r.benchmark} | ${r.figure} | ${cell(r.livecontext)} | ${cell(r.baseline)} | ${cell(r.ratio)} |`),
  ];
  return `${lines.join('\n')}\n`;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
