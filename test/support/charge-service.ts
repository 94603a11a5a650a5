/**
 * A real local HTTP service with an effect in the outside world, for the tests of side effects exactly once
 * (issue 29; the tools calling it are in test/fixtures/effects-worker.ts): `POST /charges` charges a card once
 * per `Idempotency-Key` and counts its effects; a repeated key gets the first answer without a second effect.
 * After an effect it holds its answer for `windowMs` (the window in which a worker killed has made the effect
 * and not reported it). `GET /charges/KEY` says whether KEY was charged (what a tool's reconcile asks);
 * `POST /started/KEY` lets a tool say it began (before its effect). Callers name their process in `x-worker-pid`.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export class ChargeService {
  /** Effects (charges made) per key: each must stay at 1. */
  readonly effects = new Map<string, number>();
  /** Charge requests per key, the repeated ones included (each is a run of a tool's body). */
  readonly requests = new Map<string, number>();
  readonly answers = new Map<string, string>();
  /** Requests answered from their key, without an effect. */
  replays = 0;
  onEffect: (key: string, workerPid: number) => void = () => undefined;
  /** A call of charge_later began (before its effect). */
  onStarted: (key: string, workerPid: number) => void = () => undefined;
  url = '';
  private server!: Server;
  /** Per worker pid, the effects made whose answer is still held (its connection open). */
  private held = new Map<number, number>();

  constructor(private readonly windowMs = 30_000) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** How many effects of the worker `pid` are in the window: made, and not answered yet. */
  holding(pid: number): number {
    return this.held.get(pid) ?? 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const pid = Number(req.headers['x-worker-pid']);
    const started = /^\/started\/(.+)$/.exec(req.url ?? '');
    if (req.method === 'POST' && started) {
      this.onStarted(decodeURIComponent(started[1]), pid);
      res.writeHead(200).end('ok');
      return;
    }
    const lookup = /^\/charges\/(.+)$/.exec(req.url ?? '');
    if (req.method === 'GET' && lookup) {
      const answer = this.answers.get(decodeURIComponent(lookup[1]));
      res.writeHead(answer ? 200 : 404).end(answer ?? 'no such charge');
      return;
    }
    const key = req.headers['idempotency-key'];
    if (req.method !== 'POST' || req.url !== '/charges' || typeof key !== 'string') {
      res.writeHead(400).end('POST /charges with an Idempotency-Key');
      return;
    }
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    const first = this.answers.get(key);
    if (first) {
      this.replays++;
      res.writeHead(200).end(first);
      return;
    }
    const { cents } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { cents: number };
    this.effects.set(key, (this.effects.get(key) ?? 0) + 1);
    const answer = `charge #${this.answers.size + 1} of ${cents} cents`;
    this.answers.set(key, answer);
    this.held.set(pid, this.holding(pid) + 1);
    res.once('close', () => this.held.set(pid, this.holding(pid) - 1));
    this.onEffect(key, pid);
    // The wide window: the effect is done, the caller does not know yet.
    await new Promise((r) => setTimeout(r, this.windowMs).unref());
    if (!res.destroyed) res.writeHead(200).end(answer);
  }
}
