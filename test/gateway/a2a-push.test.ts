/**
 * A2A push notifications, driven by @a2a-js/sdk's client against a gateway process of its own, received
 * by a local HTTP server: the config comes with the message; the receiver gets working, input-required,
 * working and completed in order, each signed (HMAC-SHA256 of the body with the push secret) and with
 * the caller's token; the receiver fails the first two POSTs and still gets every notification once
 * (deduped by delivery id); the gateway is SIGKILLed at input-required and the rest still arrives (the
 * worker delivers). The caller's token never enters the agent's history in clear; a non-http URL is refused.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { type IncomingMessage, createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import { z } from 'zod';
import { defineTool } from '../../activities/index';
import { a2aClient } from '../support/a2a-client';
import { startChildGateway } from '../support/child-gateway';
import { useProviderServers } from '../support/provider-servers';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { keptTexts } from '../support/raw-text';

const SECRET = `push-${uniqueId('secret')}`;
process.env.LIVECONTEXT_A2A_PUSH_SECRET = SECRET; // the worker (this process) and the gateway (its child) share it

const { t, p, taskQueue } = useProviderServers('a2a-push', { each: true });
const model = 'openai:gpt-4.1-mini';
const CALLER_TOKEN = `caller-${uniqueId('tok')}`;

const deployTool = defineTool({
  name: 'deploy',
  description: 'Deploy a service.',
  parameters: z.object({ service: z.string() }),
  needsApproval: () => 'deploys need approval',
  execute: async ({ service }) => `deployed ${service}`,
});

interface Received {
  deliveryId: string;
  body: string;
  signature: string;
  token: string | undefined;
  status: number;
}

/** A webhook that answers 500 to its first `failFirst` POSTs, then 200; it keeps every request. */
async function receiver(failFirst: number) {
  const got: Received[] = [];
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => resolve(body));
    });
  const server = createHttpServer(async (req, res) => {
    const body = await read(req);
    const status = got.length < failFirst ? 500 : 200;
    got.push({
      deliveryId: String(req.headers['x-livecontext-delivery']),
      body,
      signature: String(req.headers['x-livecontext-signature']),
      token: req.headers['x-a2a-notification-token'] as string | undefined,
      status,
    });
    res.writeHead(status).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  /** Each notification once: the first accepted POST of each delivery id, in arrival order. */
  const deduped = () => {
    const seen = new Set<string>();
    return got.filter((r) => r.status === 200 && !seen.has(r.deliveryId) && seen.add(r.deliveryId));
  };
  return { got, url, deduped, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const stateOf = (r: Received) => (JSON.parse(r.body) as { statusUpdate: { status: { state: string } } }).statusUpdate.status.state;

test('push notifications: signed, with the caller’s token, in order, once each across failures, delivered by the worker while the gateway is dead', async () => {
  const agentId = uniqueId('a2a-push');
  const hook = await receiver(2);
  p.openai.enqueue(
    { kind: 'stream', text: 'Deploying web.', toolCalls: [{ id: 'call_deploy', name: 'deploy', arguments: '{"service":"web"}' }] },
    { kind: 'stream', text: 'Deployed web.' },
  );
  await withWorker({ taskQueue, models: p.models(), tools: [deployTool], workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-a2a-push-')) }, async () => {
    await t.agents.start(agentId, { model, tools: ['deploy'] });
    const gateway = await startChildGateway(taskQueue, 0);
    try {
      const client = await a2aClient(gateway.url, agentId);
      const card = (await (await fetch(`${gateway.url}/a2a/agents/${agentId}/.well-known/agent-card.json`)).json()) as { capabilities: unknown };
      expect(card.capabilities).toMatchObject({ pushNotifications: true });

      // A webhook that is not http(s) is refused, clearly.
      const bad = SendMessageRequest.fromJSON({
        message: { messageId: 'push-bad', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
        configuration: { taskPushNotificationConfig: { url: 'ftp://example.com/hook' } },
      });
      await expect(client.sendMessage(bad)).rejects.toThrow(/must be http:\/\/ or https:\/\//);

      // The config comes with the message; the turn waits for the deploy's approval.
      const request = SendMessageRequest.fromJSON({
        message: { messageId: 'push-1', role: 'ROLE_USER', parts: [{ text: 'Deploy web.' }] },
        configuration: { taskPushNotificationConfig: { id: 'ci', url: hook.url, token: CALLER_TOKEN }, returnImmediately: false },
      });
      const waiting = await client.sendMessage(request);
      const taskId = `turn-1@${agentId}`; // the refused message started no turn
      expect(waiting).toMatchObject({ id: taskId, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } });
      const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' });
      expect(listed.configs).toMatchObject([{ id: 'ci', url: hook.url, token: CALLER_TOKEN }]);
      await eventually(() => hook.deduped().length >= 2, 60_000, 'working and input-required to be delivered');

      // The gateway dies; the approval comes another way; the worker still delivers the rest.
      await gateway.kill();
      await t.agents.approve(agentId, 'call_deploy', 'test');
      await eventually(() => hook.deduped().some((r) => stateOf(r) === 'TASK_STATE_COMPLETED'), 60_000, 'completed to be delivered');
    } finally {
      await gateway.kill();
    }

    const delivered = hook.deduped();
    expect(delivered.map(stateOf)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    // Two failures first: the first notification was POSTed three times under one delivery id.
    expect(hook.got.slice(0, 3).map((r) => [r.deliveryId, r.status])).toEqual([
      [delivered[0].deliveryId, 500],
      [delivered[0].deliveryId, 500],
      [delivered[0].deliveryId, 200],
    ]);
    expect(new Set(delivered.map((r) => r.deliveryId)).size).toBe(4);
    for (const r of hook.got) {
      expect(r.signature).toBe(`sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`);
      expect(r.token).toBe(CALLER_TOKEN);
      expect(JSON.parse(r.body)).toMatchObject({ statusUpdate: { taskId: `turn-1@${agentId}`, contextId: agentId } });
    }
    const asked = JSON.parse(delivered[1].body).statusUpdate.status.message.parts[0].text as string;
    expect(asked).toMatch(/deploy\(\{"service":"web"\}\): deploys need approval/);

    // The config is in history (set, by a2a), its token only sealed; the finished task's config is gone.
    const history = await t.agents.history(agentId);
    expect(history.filter((e) => e.kind === 'a2a_push')).toMatchObject([{ change: 'set', configId: 'ci', inputSeq: 1, url: hook.url, by: 'a2a' }]);
    // Every string Temporal and the agent keep, payload bytes decoded (JSON of the raw history holds them only as bytes).
    for (const text of await keptTexts(t.agents, agentId)) expect(text).not.toContain(CALLER_TOKEN);
    expect((await t.agents.state(agentId)).config.a2aPush).toBeUndefined();
    await maybeRecordHistory(t.agents.handle(agentId), 'a2a-push_v1.json');
  });
  await hook.close();
}, 240_000);
