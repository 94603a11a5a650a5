/**
 * The chaos suite: agents in tool loops while their worker process is SIGKILLed and restarted again
 * and again, and the model provider (the wire-level OpenAI fake, through the official SDK) answers
 * with injected faults. It reports what must all be zero: inputs lost, inputs duplicated, completed
 * tool calls scheduled again by the agent, replay failures of the final histories — and how many agents
 * finished. The loop's tool, `record`, is marked idempotent: one that finished on a worker killed before
 * it could report so is run again by Temporal's next attempt; those runs are counted apart.
 * Beside it, on its own worker, runs the effects scenario (effects-chaos.ts): tools with an effect in the
 * outside world, their worker killed between the effect and its report, one kill per call.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentClient } from '../../client/agent-client';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { type FakeOpenAIResponse, type RecordedOpenAIRequest, startFakeOpenAIServer } from '../support/fake-openai-server';
import { addAgentDamage, noDamage, toolLoopResponse } from '../support/tool-loop-chaos';
import { type EffectsChaosOptions, type EffectsReport, type EffectsSamples, runEffectsChaos } from './effects-chaos';

export interface ChaosOptions {
  agents: AgentClient;
  taskQueue: string;
  workflowBundle: { codePath: string };
  agentCount?: number;
  inputsPerAgent?: number;
  kills?: number;
  /** Share of model requests answered with a fault. */
  faultRate?: number;
  /** Agents per tool of the effects scenario (one call, so one kill, each). */
  effects?: Pick<EffectsChaosOptions, 'reconciled' | 'idempotent' | 'plain'>;
  log?: (line: string) => void;
}

export interface ChaosReport {
  agents: number;
  agentsFinished: number;
  inputsSent: number;
  inputsLost: number;
  inputsDuplicated: number;
  toolCallsCompleted: number;
  /** A call that had finished run again as a new activity (attempt 1): the agent scheduled it twice. */
  completedToolCallsReExecuted: number;
  /**
   * A call that had finished run again as Temporal's next attempt: its worker died before reporting. Not
   * damage only because `record` is idempotent; a tool that is not, and has no reconcile, is never run
   * again so (the effects report's `nonIdempotentBodiesRunAgain`).
   */
  toolCallsRetriedAfterWorkerDeath: number;
  replayFailures: number;
  workerKills: number;
  modelRequests: number;
  faultsInjected: Record<string, number>;
  /** The effects scenario's figures (it runs at the same time, on its own worker). */
  effects: EffectsReport;
  /** The tool loop's time, and the whole run's (the longer of the two scenarios). */
  toolLoopSeconds: number;
  seconds: number;
}

/** A small deterministic PRNG, so a run's fault pattern can be reproduced from its seed. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

/** The tool-loop chaos and the effects scenario at the same time; `onEffectsSamples` gets the effects scenario's sample agents. */
export async function runChaos(o: ChaosOptions & { onEffectsSamples?: (s: EffectsSamples) => Promise<void> }): Promise<ChaosReport> {
  const started = Date.now();
  const [loop, effects] = await Promise.all([
    runToolLoopChaos(o),
    runEffectsChaos({ ...o, ...o.effects }).then(async ({ report, samples }) => {
      await o.onEffectsSamples?.(samples);
      return report;
    }),
  ]);
  return { ...loop, toolLoopSeconds: loop.seconds, effects, seconds: Math.round((Date.now() - started) / 1000) };
}

async function runToolLoopChaos(o: ChaosOptions): Promise<Omit<ChaosReport, 'effects' | 'toolLoopSeconds'>> {
  const started = Date.now();
  const log = o.log ?? (() => {});
  const agentCount = o.agentCount ?? 20;
  const inputsPerAgent = o.inputsPerAgent ?? 3;
  const kills = o.kills ?? 5;
  const random = prng(20261122);
  const faults: Record<string, number> = {};
  const fake = await startFakeOpenAIServer();
  // Tool calls after input, an answer after tool results; one request in `faultRate` fails instead.
  fake.respond = (req: RecordedOpenAIRequest): FakeOpenAIResponse => {
    const faultKinds: FakeOpenAIResponse[] = [
      { kind: 'error', status: 500 },
      { kind: 'error', status: 429, headers: { 'retry-after': '1' } },
      { kind: 'cut', afterChunks: 1, text: 'partial words that are lost' },
      { kind: 'truncated', text: 'looks complete but is not' },
    ];
    if (random() < (o.faultRate ?? 0.2)) {
      const f = faultKinds[Math.floor(random() * faultKinds.length)];
      faults[f.kind === 'error' ? String(f.status) : f.kind] = (faults[f.kind === 'error' ? String(f.status) : f.kind] ?? 0) + 1;
      return f;
    }
    return toolLoopResponse(req);
  };

  const env = {
    taskQueue: o.taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-chaos-ws-')),
    controlDir: mkdtempSync(path.join(tmpdir(), 'lc-chaos-ctl-')),
    extraEnv: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: `${fake.url}/v1` },
  };
  let worker: ChildWorker | undefined = await startChildWorker(env);
  const ids = Array.from({ length: agentCount }, (_, i) => `${o.taskQueue}-agent-${i}`);
  try {
    await Promise.all(ids.map((id) => o.agents.start(id, { model: 'openai:gpt-4.1-mini', tools: ['record'] })));
    const sent: Record<string, string[]> = Object.fromEntries(ids.map((id) => [id, []]));
    const send = async (round: number) => {
      for (const id of ids) {
        const text = `${id} input ${round}`;
        sent[id].push(text);
        await o.agents.signal(id, text); // fire-and-forget, as other services would
      }
    };
    await send(0);
    for (let k = 0; k < kills; k++) {
      await new Promise((r) => setTimeout(r, 1500 + random() * 2000));
      await worker.kill('SIGKILL');
      log(`chaos: worker killed (${k + 1}/${kills})`);
      if (k < inputsPerAgent - 1) await send(k + 1); // inputs sent while no worker runs
      await new Promise((r) => setTimeout(r, random() * 1000));
      worker = await startChildWorker(env);
    }
    for (let round = kills + 1; round < inputsPerAgent; round++) await send(round);

    const finished = await Promise.all(
      ids.map((id) =>
        o.agents.waitForAnswer(id, inputsPerAgent).then(
          (r) => r.status === 'answered',
          () => false,
        ),
      ),
    );
    log('chaos: all answers awaited');

    const damage = noDamage();
    for (const id of ids) {
      await addAgentDamage(damage, {
        client: o.agents.client,
        id,
        history: await o.agents.history(id),
        sent: sent[id],
        workspaceRoot: env.workspaceRoot,
        workflowBundle: o.workflowBundle,
        onReplayFailure: (runId, err) => log(`chaos: replay of ${id} run ${runId} failed: ${err.message}`),
      });
    }
    return {
      agents: agentCount,
      agentsFinished: finished.filter(Boolean).length,
      inputsSent: agentCount * inputsPerAgent,
      inputsLost: damage.lost,
      inputsDuplicated: damage.duplicated,
      toolCallsCompleted: damage.completed,
      completedToolCallsReExecuted: damage.reExecuted,
      toolCallsRetriedAfterWorkerDeath: damage.retried,
      replayFailures: damage.replayFailures,
      workerKills: kills,
      modelRequests: fake.requests.length,
      faultsInjected: faults,
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    await worker?.kill('SIGKILL');
    await fake.close();
  }
}
