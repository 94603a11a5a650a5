/**
 * The chaos suite's effects scenario (issue 29, side effects exactly once): tools charge a card through a
 * real local HTTP service (test/support/charge-service.ts) that counts its effects per `Idempotency-Key`
 * and holds each answer for a wide window (30 s) after the effect. The worker (test/fixtures/effects-worker.ts,
 * a child process running one activity at a time) is SIGKILLed right after each first effect, inside that
 * window — one kill per call. Three kinds of tool: `charge_checked` has `reconcile` (it asks the service),
 * `charge_idempotent` is marked idempotent (its second run sends the same key, which the service answers
 * without charging again), `charge` has neither: its agent waits with the call unknown until
 * `resolveToolCall` moves it on (done and retry in turn; retry's run is answered from the key).
 * The report says what must be zero or equal; what differs from the expected is also logged.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentStatus, ToolCallResult, ToolResultsEntry } from '../../agent/index';
import { AgentClient } from '../../client/agent-client';
import { NoWorkerError } from '../../client/worker-status';
import { callsInput } from '../fixtures/calls-script';
import { ChargeService } from '../support/charge-service';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { eventually } from '../support/temporal';
import { replayRuns } from '../support/tool-loop-chaos';

export interface EffectsChaosOptions {
  agents: AgentClient;
  taskQueue: string;
  workflowBundle: { codePath: string };
  /** Agents (one call each) per tool: with reconcile, idempotent, neither. */
  reconciled?: number;
  idempotent?: number;
  plain?: number;
  log?: (line: string) => void;
}

export interface EffectsReport {
  calls: number;
  workerKills: number;
  /** Kills of a worker that had made an effect the service had not answered yet: at least 20 for the issue's claim. */
  killsInWindow: number;
  /** Keys the service charged (one per call), and those it charged more than once (0). */
  keysCharged: number;
  keysChargedTwice: number;
  /** Runs of a non-idempotent tool's body after the kill that nobody asked for: a reconciled call's, or an unknown call's before its resolve (0). */
  nonIdempotentBodiesRunAgain: number;
  /** With reconcile: calls, and those that ended succeeded with the service's answer, found by reconcile (equal). */
  reconcileCalls: number;
  reconcileSucceeded: number;
  /** Neither: calls; left waiting with the call unknown; resolved and moved on to an answer (all equal). */
  plainCalls: number;
  plainLeftUnknown: number;
  plainResolvedMovedOn: number;
  /** A second resolve of a resolved call that was accepted (0). */
  secondResolvesAccepted: number;
  /** Idempotent: calls; run again after the kill (the service saw the key twice); ended succeeded with the first answer (all equal). */
  idempotentCalls: number;
  idempotentReRun: number;
  idempotentSucceeded: number;
  replayFailures: number;
  seconds: number;
}

/** Agents of the report's scenarios, for tests that record their histories. */
export interface EffectsSamples {
  reconciled: string;
  resolvedDone: string;
  resolvedRetry: string;
  idempotent: string;
}

export async function runEffectsChaos(o: EffectsChaosOptions): Promise<{ report: EffectsReport; samples: EffectsSamples }> {
  const started = Date.now();
  const log = o.log ?? (() => {});
  const service = new ChargeService();
  await service.start();
  const taskQueue = `${o.taskQueue}-effects`;
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-chaos-effects-'));
  const startWorker = () => startChildWorker({ fixture: 'effects-worker.ts', taskQueue, workspaceRoot, extraEnv: { EFFECT_SERVICE_URL: service.url } });
  const agents = new AgentClient(o.agents.client, taskQueue, o.agents.options);
  let worker: ChildWorker | undefined;
  let workerKills = 0;
  let killsInWindow = 0;
  // Kill the worker that made the effect — also one that made it while it was starting, before its pid was known.
  const cut = new Set<number>();
  let restarting: Promise<void> = Promise.resolve();
  service.onEffect = (_key, pid) => {
    cut.add(pid);
    restarting = restarting.then(async () => {
      while (worker && cut.has(worker.proc.pid!)) {
        if (service.holding(worker.proc.pid!) > 0) killsInWindow++;
        await worker.kill('SIGKILL');
        workerKills++;
        log(`chaos effects: worker killed after an effect (${workerKills})`);
        worker = await startWorker();
      }
    });
  };
  const ids = (kind: string, n: number) => Array.from({ length: n }, (_, i) => `${taskQueue}-${kind}-${i}`);
  const checked = ids('checked', o.reconciled ?? 8);
  const idempotent = ids('idempotent', o.idempotent ?? 6);
  const plain = ids('plain', o.plain ?? 8);
  const r: EffectsReport = {
    calls: checked.length + idempotent.length + plain.length,
    workerKills: 0,
    killsInWindow: 0,
    keysCharged: 0,
    keysChargedTwice: 0,
    nonIdempotentBodiesRunAgain: 0,
    reconcileCalls: checked.length,
    reconcileSucceeded: 0,
    plainCalls: plain.length,
    plainLeftUnknown: 0,
    plainResolvedMovedOn: 0,
    secondResolvesAccepted: 0,
    idempotentCalls: idempotent.length,
    idempotentReRun: 0,
    idempotentSucceeded: 0,
    replayFailures: 0,
    seconds: 0,
  };
  /** Runs `check` for one agent; what goes wrong is logged and leaves its figure short. */
  const each = async (agentId: string, check: () => Promise<void>) => {
    // The cause too: Temporal's client wraps a failed call's gRPC status as "Failed to query Workflow".
    await check().catch((err: Error) => log(`chaos effects: ${agentId}: ${err.message}${err.cause ? ` (${String(err.cause)})` : ''}`));
  };
  const expectThat = (ok: boolean, what: string, got: unknown) => {
    if (!ok) throw new Error(`${what}; got ${JSON.stringify(got)}`);
  };
  const keyOf = (agentId: string, result: ToolCallResult) => `${agentId}/${result.toolCallId}`;
  /**
   * The scenario kills the worker after each effect and starts another, which takes seconds: a query in
   * that window fails at once with NoWorkerError (as it should); this caller, like one that knows a
   * worker is coming back, asks again.
   */
  const overRestarts = async <T>(call: () => Promise<T>): Promise<T> => {
    for (const since = Date.now(); ;) {
      try {
        return await call();
      } catch (err) {
        if (!(err instanceof NoWorkerError) || Date.now() - since > 120_000) throw err;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  };
  const toolResult = async (agentId: string): Promise<ToolCallResult> => {
    const entry = (await overRestarts(() => agents.history(agentId))).find((e): e is ToolResultsEntry => e.kind === 'tool_results');
    if (!entry) throw new Error('no tool results');
    return entry.results[0];
  };

  try {
    worker = await startWorker();
    const inputs = new Map<string, number>();
    for (const [group, tool] of [
      [checked, 'charge_checked'],
      [idempotent, 'charge_idempotent'],
      [plain, 'charge'],
    ] as const) {
      for (const [i, agentId] of group.entries()) {
        await agents.start(agentId, { model: 'scripted:calls' });
        inputs.set(agentId, (await agents.send(agentId, callsInput([{ name: tool, args: { cents: 100 + i } }]))).inputSeq);
      }
    }
    const answered = async (agentId: string) => {
      const outcome = await overRestarts(() => agents.waitForAnswer(agentId, inputs.get(agentId)!));
      expectThat(outcome.status === 'answered', 'the turn should end answered', outcome.status);
    };

    for (const agentId of checked) {
      await each(agentId, async () => {
        await answered(agentId);
        const result = await toolResult(agentId);
        const key = keyOf(agentId, result);
        r.nonIdempotentBodiesRunAgain += (service.requests.get(key) ?? 1) - 1;
        const m = result.metadata as Record<string, unknown> | undefined;
        expectThat(
          result.status === 'Success' && m?.reconciled === true && m.found_by === 'reconcile' && result.result === `charged: ${service.answers.get(key)}`,
          'a reconciled call should end succeeded with the service answer',
          result,
        );
        r.reconcileSucceeded++;
      });
    }

    for (const agentId of idempotent) {
      await each(agentId, async () => {
        await answered(agentId);
        const result = await toolResult(agentId);
        const key = keyOf(agentId, result);
        if ((service.requests.get(key) ?? 0) === 2) r.idempotentReRun++;
        const m = result.metadata as Record<string, unknown> | undefined;
        expectThat(
          result.status === 'Success' && m?.rerun_after_unknown === true && result.result === `charged: ${service.answers.get(key)}`,
          'an idempotent call should be run again and end succeeded with the first answer',
          result,
        );
        r.idempotentSucceeded++;
      });
    }

    for (const [i, agentId] of plain.entries()) {
      await each(agentId, async () => {
        const waiting = await eventually(
          async () => {
            const s = await overRestarts(() => agents.state(agentId));
            return s.blockedOn === 'unknown_outcome' ? s : undefined;
          },
          240_000,
          `${agentId} to wait on an unknown outcome`,
        );
        const unknown = waiting.unknownOutcomes?.[0];
        const key = `${agentId}/${unknown?.toolCallId}`;
        r.nonIdempotentBodiesRunAgain += (service.requests.get(key) ?? 1) - 1;
        expectThat(
          unknown?.toolName === 'charge' &&
            unknown.reason.includes('never reported') &&
            waiting.effects?.some((e) => e.toolCallId === unknown.toolCallId && e.outcome === 'unknown') === true,
          'the call should be marked unknown, in the ledger too',
          waiting,
        );
        r.plainLeftUnknown++;
        const resolution = i % 2 === 0 ? { done: 'checked the statement: charged once', by: 'ops' } : { retry: true as const, by: 'ops' };
        const after: AgentStatus = await agents.resolveToolCall(agentId, { toolCallId: unknown!.toolCallId, ...resolution });
        expectThat(after.unknownOutcomes === undefined, 'a resolve should clear the unknown outcome', after.unknownOutcomes);
        const again = await agents.resolveToolCall(agentId, { toolCallId: unknown!.toolCallId, done: 'again' }).then(
          () => 'accepted',
          (err: { cause?: { type?: string } }) => err.cause?.type,
        );
        if (again === 'accepted') r.secondResolvesAccepted++;
        expectThat(again === 'ALREADY_RESOLVED', 'a second resolve should be refused ALREADY_RESOLVED', again);
        await answered(agentId);
        const result = await toolResult(agentId);
        const m = result.metadata as Record<string, unknown> | undefined;
        const expected = 'done' in resolution ? resolution.done : `charged: ${service.answers.get(key)}`;
        expectThat(
          result.status === 'Success' && m?.resolved === ('done' in resolution ? 'done' : 'retry') && m.resolved_by === 'ops' && result.result === expected,
          'the resolved call should end as resolved',
          result,
        );
        r.plainResolvedMovedOn++;
      });
    }

    await restarting;
    r.workerKills = workerKills;
    r.killsInWindow = killsInWindow;
    r.keysCharged = service.effects.size;
    r.keysChargedTwice = [...service.effects.values()].filter((n) => n > 1).length;
    for (const id of [...checked, ...idempotent, ...plain]) {
      const replayed = await replayRuns({
        client: agents.client,
        id,
        workflowBundle: o.workflowBundle,
        onReplayFailure: (runId, err) => log(`chaos effects: replay of ${id} run ${runId} failed: ${err.message}`),
      });
      r.replayFailures += replayed.failures;
    }
    r.seconds = Math.round((Date.now() - started) / 1000);
    return { report: r, samples: { reconciled: checked[0], resolvedDone: plain[0], resolvedRetry: plain[1], idempotent: idempotent[0] } };
  } finally {
    await restarting.catch(() => undefined);
    await worker?.kill('SIGKILL');
    await service.stop();
  }
}
