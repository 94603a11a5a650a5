/**
 * `npm run chaos`: the chaos suite on its own dev server (the tool loop and, beside it, the effects scenario);
 * prints the report and writes it to test/chaos/results/latest.json; exits 1 on any damage.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { AgentClient } from '../../client/agent-client';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { runChaos } from './chaos-suite';

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const exe = process.env.TEMPORAL_CLI_PATH;
  const env = await TestWorkflowEnvironment.createLocal({
    server: { ...(exe ? { executable: { type: 'existing-path', path: exe } } : {}), extraArgs: ['--log-level', 'error'] },
  });
  try {
    const dir = path.resolve(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows/index'), logger: new DefaultLogger('ERROR') });
    const codePath = path.join(dir, 'workflow-bundle.js');
    writeFileSync(codePath, bundle.code);
    // The child workers read these, as in the test suite.
    process.env.LIVECONTEXT_TEST_ADDRESS = env.address;
    process.env.LIVECONTEXT_TEST_BUNDLE = codePath;
    const connection = await Connection.connect({ address: env.address });
    const taskQueue = `chaos-${Date.now()}`;
    const agents = new AgentClient(new Client({ connection, dataConverter: livecontextDataConverter() }), taskQueue);
    const report = await runChaos({ agents, taskQueue, workflowBundle: { codePath }, log: (l) => console.error(l) });
    await connection.close();
    const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
    writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify({ ...report, machine, date: new Date().toISOString() }, null, 2)}\n`);
    const { effects, ...loop } = report;
    for (const [title, figures] of [
      ['tool loop', loop],
      ['effects', effects],
    ] as const) {
      console.log(`\n${title}\n\n| figure | value |\n|---|---|`);
      for (const [k, v] of Object.entries(figures)) console.log(`| ${k} | ${typeof v === 'object' ? JSON.stringify(v) : v} |`);
    }
    console.log(`\nmachine: ${machine}`);
    const damage =
      report.inputsLost + report.inputsDuplicated + report.completedToolCallsReExecuted + report.replayFailures + (report.agents - report.agentsFinished);
    const e = effects;
    const effectsDamage =
      e.keysChargedTwice +
      e.nonIdempotentBodiesRunAgain +
      e.secondResolvesAccepted +
      e.replayFailures +
      (e.keysCharged !== e.calls || e.workerKills !== e.killsInWindow ? 1 : 0) +
      (e.reconcileCalls - e.reconcileSucceeded) +
      (e.plainCalls - e.plainLeftUnknown) +
      (e.plainCalls - e.plainResolvedMovedOn) +
      (e.idempotentCalls - e.idempotentReRun) +
      (e.idempotentCalls - e.idempotentSucceeded);
    if (e.killsInWindow < 20) console.error(`chaos: only ${e.killsInWindow} kills between an effect and its report (the claim needs 20)`);
    process.exitCode = damage === 0 && effectsDamage === 0 && e.killsInWindow >= 20 ? 0 : 1;
  } finally {
    await env.teardown();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
