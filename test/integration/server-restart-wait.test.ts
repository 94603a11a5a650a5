/**
 * `livecontext send --wait` outlives a restart of the Temporal server: the input was accepted before the
 * server went down, so the wait (an update that changes nothing) is repeated until the server is back
 * and the answer comes. This test runs its own dev server (SQLite file, so it restarts with its data)
 * and keeps it down longer than the Temporal client's own retries last.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { freePort, isListening } from '../../common/ports';
import { createLivecontextWorker } from '../../worker/create-worker';
import { SEARCH_ATTRIBUTES } from '../../workflows/messages';
import { echoStep } from '../fixtures/scripts';
import { cli } from '../support/cli';
import { eventually, uniqueId, workflowBundle } from '../support/temporal';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureTemporalCli } = require('../../scripts/temporal-cli.cjs');

/** Longer than the ~20 s the Temporal client's own gRPC retries cover. */
const DOWNTIME_MS = 35_000;

/** A dev server on `port` keeping its data in `dbFile`; resolves once it listens. */
async function startServer(port: number, dbFile: string): Promise<{ stop(): Promise<void> }> {
  const exe: string = ensureTemporalCli({ log: () => {} }) ?? 'temporal';
  const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--db-filename', dbFile, '--log-level', 'error'];
  const child: ChildProcess = spawn(exe, [...args, ...SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`])], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await eventually(() => isListening(port), 60_000, 'the dev server to listen');
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

test('send --wait keeps waiting while the server restarts, and prints the answer', async () => {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'lc-restart-')), 'temporal.db');
  const taskQueue = uniqueId('restart');
  const id = uniqueId('restart-agent');
  let server = await startServer(port, dbFile);

  let modelCalled = false;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = (req: Parameters<typeof echoStep>[0]) => ({
    ...echoStep(req),
    before: async () => {
      modelCalled = true;
      await released;
    },
  });

  const connection = await Connection.connect({ address });
  const agents = new AgentClient(new Client({ connection, dataConverter: livecontextDataConverter() }), taskQueue);
  const workerConnection = await NativeConnection.connect({ address });
  try {
    const worker = await createLivecontextWorker({
      connection: workerConnection,
      taskQueue,
      workflowBundle: workflowBundle(),
      models: [new ScriptedModelProvider({ held })],
    });
    await worker.runUntil(async () => {
      await agents.start(id, { model: 'scripted:held' });
      const waiting = cli(['send', id, 'hello', '--wait'], { env: { TEMPORAL_ADDRESS: address, LIVECONTEXT_TASK_QUEUE: taskQueue } });
      await eventually(() => modelCalled, 60_000, 'the input to be accepted and its model call to start');

      await server.stop();
      await new Promise((r) => setTimeout(r, DOWNTIME_MS));
      server = await startServer(port, dbFile);
      release();

      expect(await waiting).toMatchObject({ code: 0, stdout: 'echo: hello\n', stderr: '' });
      const inputs = (await agents.history(id)).filter((e) => e.kind === 'model_input');
      expect(inputs).toHaveLength(1);
    });
  } finally {
    release();
    await connection.close();
    await workerConnection.close();
    await server.stop();
  }
}, 240_000);
