/**
 * `npm run chaos`: the chaos suite on its own dev server; prints the report and writes it to
 * test/chaos/results/latest.json.
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
    console.log('| figure | value |\n|---|---|');
    for (const [k, v] of Object.entries(report)) console.log(`| ${k} | ${typeof v === 'object' ? JSON.stringify(v) : v} |`);
    console.log(`\nmachine: ${machine}`);
    const damage =
      report.inputsLost + report.inputsDuplicated + report.completedToolCallsReExecuted + report.replayFailures + (report.agents - report.agentsFinished);
    process.exitCode = damage === 0 ? 0 : 1;
  } finally {
    await env.teardown();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
