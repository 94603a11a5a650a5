/**
 * A short CLI command with tracing on exports its spans before the process exits: `livecontext stop`
 * in a child process, with the batch processor told to wait a minute (OTEL_BSP_SCHEDULE_DELAY), still
 * delivers its `SignalWorkflow:stop` span to an OTLP/HTTP receiver in the test, because the CLI shuts
 * the tracer provider down (flushing it) on its way out.
 */
import { spawn } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { testAddress, uniqueId } from '../support/temporal';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
const names: string[] = [];
let receiver: Server;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const request = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string }> }> }> };
      for (const rs of request.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) names.push(s.name);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
});

test('`livecontext stop` exports its span before it exits, though the batch would wait a minute', async () => {
  const connection = await Connection.connect({ address: testAddress() });
  const client = new Client({ connection, dataConverter: livecontextDataConverter() });
  const agentId = uniqueId('cli-traced');
  // A running agent is all `stop` needs: no worker has to take it.
  const handle = await client.workflow.start('agentWorkflow', {
    taskQueue: uniqueId('no-worker'),
    workflowId: agentId,
    args: [{ config: { model: 'demo:offline' } }],
  });
  try {
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
    const cli = spawn(process.execPath, ['--import', 'tsx', '-e', "require('./cli/cli.ts').run(process.argv.slice(1))", 'stop', agentId], {
      cwd: ROOT,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: testAddress(),
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '60000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    cli.stdout.on('data', (d) => (out += d));
    cli.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => cli.once('exit', resolve));
    expect({ code, out }).toMatchObject({ code: 0, out: expect.stringContaining(`Asked agent to stop "${agentId}"`) });
    // Received before the process ended (the receiver answered the export the CLI waited for).
    expect(names).toContain('SignalWorkflow:stop');
  } finally {
    await handle.terminate('test over').catch(() => undefined);
    await connection.close();
  }
});
