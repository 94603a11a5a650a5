/** What the REST tests share: a worker and a gateway that run for the whole file, and small readers of answers. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import type { AgentClient } from '../../client/agent-client';
import { echoScript } from '../fixtures/scripts';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { connectTest, eventually, type TestContext, uniqueId, withWorker } from '../support/temporal';

export interface BackgroundWorker {
  workspaceRoot: string;
  stop(): Promise<void>;
}

/**
 * An in-process worker on `taskQueue` (demo:offline built in, scripted:echo added) until stop(); resolves
 * once Temporal sees it poll, so the gateway's worker check finds it.
 */
export async function startBackgroundWorker(taskQueue: string, agents: AgentClient): Promise<BackgroundWorker> {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-rest-ws-'));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const running = withWorker({ taskQueue, workspaceRoot, models: [new ScriptedModelProvider({ echo: echoScript })] }, () => released);
  running.catch(() => {}); // a start failure surfaces below, through eventually's timeout and stop()
  await eventually(async () => (await agents.workerStatus(taskQueue)).polling, 60_000, 'the worker to poll');
  return {
    workspaceRoot,
    async stop() {
      release();
      await running;
    },
  };
}

/** The answer text of a turn outcome as the REST API returns it, or its status. */
export function answerText(outcome: { status: string; answer?: { contents: string[] } }): string {
  return outcome.status === 'answered' ? outcome.answer!.contents.join('') : outcome.status;
}

/**
 * A file's REST set-up: a connection on a fresh task queue named from `prefix`, a background worker and a
 * gateway (with `gateway`'s tokens or CORS origins), started before its tests and closed after them (read
 * `t`, `gw` and `worker` inside tests).
 */
export function useRestGateway(
  prefix: string,
  gateway?: Parameters<typeof startTestGateway>[1],
): { t: TestContext; gw: TestGateway; worker: BackgroundWorker } {
  const set = {} as { t: TestContext; gw: TestGateway; worker: BackgroundWorker };
  beforeAll(async () => {
    set.t = await connectTest(uniqueId(prefix));
    set.worker = await startBackgroundWorker(set.t.agents.taskQueue, set.t.agents);
    set.gw = await startTestGateway(set.t.agents, gateway);
  });
  afterAll(async () => {
    await set.gw?.close();
    await set.worker?.stop();
    await set.t?.close();
  });
  return set;
}
