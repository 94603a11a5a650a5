/**
 * Issue 31: the dev server `livecontext dev` and `npm start` run hands a model call back to the worker
 * in the reply to the workflow task that scheduled it (eager activity execution), instead of through
 * matching. Counted as the server counts it: its own metric `activity_eager_execution`, by task queue.
 * And its database file keeps a write-ahead log (the file's header says so).
 */
import { closeSync, mkdtempSync, openSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { freePort, isListening } from '../../common/ports';
import { createLivecontextWorker } from '../../worker/create-worker';
import { type DevServer, startDevServer } from '../../worker/dev-server';
import { echoScript } from '../fixtures/scripts';
import { eventually, uniqueId, workflowBundle } from '../support/temporal';

let server: DevServer | undefined;
afterAll(async () => server?.stop());

/** A port with nothing on it, nor on the port + 1000 (where the server's Web UI would go by default). */
async function freeServerPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port <= 64_535 && !(await isListening(port + 1000))) return port;
  }
}

/** The server's `activity_eager_execution` count for `taskQueue` (0 when it has none). */
async function eagerCount(metricsPort: number, taskQueue: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const label = `taskqueue="${taskQueue.replace(/\W/g, '_')}"`; // as the server's exporter writes label values
  const line = text.split('\n').find((l) => l.startsWith('activity_eager_execution{') && l.includes(label));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** The server's eager-execution lines, shown when the count never appears. */
async function metricsLines(metricsPort: number): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return (
    text
      .split('\n')
      .filter((l) => l.includes('eager'))
      .join('\n') || '(no line of the server metrics names eager)'
  );
}

test('the dev server livecontext starts runs model calls eagerly: the server counts them as eager executions', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'lc-eager-'));
  const metricsPort = await freePort();
  server = await startDevServer({ port: await freeServerPort(), uiPort: await freePort(), dataDir, metricsPort, owner: 'dev-server-eager.test.ts' });
  expect(server.started).toBe(true);

  const taskQueue = uniqueId('eager');
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  try {
    const agents = new AgentClient(new Client({ connection, dataConverter: livecontextDataConverter() }), taskQueue);
    const worker = await createLivecontextWorker({
      connection: native,
      taskQueue,
      workflowBundle: workflowBundle(),
      models: [new ScriptedModelProvider({ echo: echoScript })],
      workspaceRoot: path.join(dataDir, 'workspaces'),
    });
    await worker.runUntil(async () => {
      const id = uniqueId('agent');
      await agents.start(id, { model: 'scripted:echo' });
      for (const text of ['one', 'two', 'three']) expect(await agents.ask(id, text)).toMatchObject({ status: 'answered' });
    });
    // A worker asks for it only while it has an activity slot to spare (so not for every call), and a
    // server without the setting never counts one. The server's exporter publishes its counters on a
    // reporting interval, so the count is read until it shows (or the wait runs out and the test fails).
    const counted = await eventually(
      async () => ((await eagerCount(metricsPort, taskQueue)) > 0 ? true : undefined),
      20_000,
      'the server to count an eager execution',
    ).catch(() => false);
    expect(counted ? 'counted' : await metricsLines(metricsPort)).toBe('counted');
    // An SQLite file's header bytes 18 and 19 (write and read format versions) are 2 in WAL mode, 1 in the
    // default rollback-journal mode.
    const fd = openSync(path.join(dataDir, 'temporal.db'), 'r');
    const header = Buffer.alloc(20);
    readSync(fd, header, 0, 20, 0);
    closeSync(fd);
    expect([header.subarray(0, 15).toString(), header[18], header[19]]).toEqual(['SQLite format 3', 2, 2]);
  } finally {
    await connection.close();
    await native.close();
  }
});
