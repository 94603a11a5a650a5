/**
 * Agents that wait on a tool call whose outcome is unknown, made as in production: a worker (a child
 * process, test/fixtures/effects-worker.ts) is SIGKILLed right after a local HTTP service has charged a
 * card for the call, so the call's next attempt cannot know whether the charge happened, and the agent
 * waits with it marked unknown. For the tests of the doors a person resolves it through (page, chat, MCP).
 */
import { mkdtempSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentStatus, ToolCallResult, ToolResultsEntry } from '../../agent/index';
import { callsInput } from '../fixtures/calls-script';
import { type ChildWorker, startChildWorker } from './child-worker';
import { eventually, type TestContext, uniqueId } from './temporal';

/** Charges once per Idempotency-Key; a first charge is never answered (its worker is killed), a repeated key gets the first answer. */
export class ChargeService {
  readonly effects = new Map<string, number>();
  readonly answers = new Map<string, string>();
  private charged: Array<(key: string) => void> = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Resolves with the key of the next first charge. */
  nextCharge(): Promise<string> {
    return new Promise((resolve) => this.charged.push(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    req.resume(); // the body: the amount does not matter here
    const key = req.headers['idempotency-key'];
    if (req.method !== 'POST' || typeof key !== 'string') {
      res.writeHead(400).end('POST /charges with an Idempotency-Key');
      return;
    }
    const first = this.answers.get(key);
    if (first) {
      res.writeHead(200).end(first);
      return;
    }
    this.effects.set(key, (this.effects.get(key) ?? 0) + 1);
    this.answers.set(key, `charge #${this.answers.size + 1}`);
    this.charged.shift()?.(key); // the answer is held: the worker is killed now
  }
}

export type UnknownOutcome = NonNullable<AgentStatus['unknownOutcomes']>[number];

export interface UnknownOutcomes {
  service: ChargeService;
  /**
   * Starts an agent (model scripted:calls) whose one call of `charge` is cut by its worker's death after
   * the charge; resolves once the agent waits on it. `started` runs once the agent is, before its input is sent.
   */
  agentWaitingOnUnknown(o?: {
    started?: (agentId: string) => Promise<void>;
  }): Promise<{ agentId: string; inputSeq: number; key: string; unknown: UnknownOutcome }>;
  /** The result of the agent's (first) charge. */
  chargeResult(agentId: string): Promise<ToolCallResult>;
}

/** The service and the effects worker of a test file on `taskQueue`, from beforeAll to afterAll. */
export function useUnknownOutcomes(t: TestContext, taskQueue: string): UnknownOutcomes {
  const service = new ChargeService();
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-unknown-'));
  let worker: ChildWorker | undefined;
  const startWorker = () => startChildWorker({ fixture: 'effects-worker.ts', taskQueue, workspaceRoot, extraEnv: { EFFECT_SERVICE_URL: service.url } });
  beforeAll(() => service.start());
  afterAll(async () => {
    await worker?.kill('SIGKILL');
    await service.stop();
  });
  return {
    service,
    async agentWaitingOnUnknown(o = {}) {
      worker ??= await startWorker();
      const agentId = uniqueId('unknown');
      await t.agents.start(agentId, { model: 'scripted:calls' });
      await o.started?.(agentId);
      const charged = service.nextCharge();
      const { inputSeq } = await t.agents.send(agentId, callsInput([{ name: 'charge', args: { cents: 250 } }]));
      const key = await charged;
      await worker.kill('SIGKILL');
      worker = await startWorker();
      const waiting = await eventually(
        async () => {
          const s = await t.agents.state(agentId);
          return s.blockedOn === 'unknown_outcome' ? s : undefined;
        },
        120_000,
        `${agentId} to wait on an unknown outcome`,
      );
      return { agentId, inputSeq, key, unknown: waiting.unknownOutcomes![0] };
    },
    async chargeResult(agentId) {
      const entry = (await t.agents.history(agentId)).find((e): e is ToolResultsEntry => e.kind === 'tool_results');
      return entry!.results[0];
    },
  };
}
