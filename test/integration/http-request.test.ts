/**
 * The built-in `http_request` against real local HTTP services written for the test: each request
 * carries the call's idempotency key in `Idempotency-Key`; a call waits for a person's approval by
 * default (the service sees nothing before it); a host not on the worker's allow-list is refused at once,
 * asking nobody and sending nothing; an error status is a Failed result with the service's answer; with
 * `approval: false` calls run at once. Without an allow-list the tool is not offered.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import type { ToolCallResult, ToolResultsEntry } from '../../agent/index';
import { callsInput, callsScript } from '../fixtures/calls-script';
import { uniqueId, waitingForApproval, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('http-request');
const models = [new ScriptedModelProvider({ calls: callsScript })];
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));

interface Seen {
  method: string;
  url: string;
  key: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** A service that records each request; `/conflict` answers 409, anything else 201 with JSON. */
async function service(): Promise<{ host: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const key = req.headers['idempotency-key'] as string | undefined;
      seen.push({ method: req.method ?? '', url: req.url ?? '', key, contentType: req.headers['content-type'], body });
      if (req.url === '/conflict') {
        res.writeHead(409, { 'content-type': 'text/plain' }).end('order already placed');
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ created: true, key }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let listed: Awaited<ReturnType<typeof service>>;
let unlisted: Awaited<ReturnType<typeof service>>;
beforeAll(async () => {
  listed = await service();
  unlisted = await service();
});
afterAll(async () => {
  await listed?.close();
  await unlisted?.close();
});

async function lastResults(agentId: string): Promise<ToolCallResult[]> {
  const entries = (await t.agents.history(agentId)).filter((e) => e.kind === 'tool_results') as ToolResultsEntry[];
  return entries[entries.length - 1].results;
}

test('a listed host: approval first, then the request with its Idempotency-Key; an unlisted host is refused', async () => {
  await withWorker({ taskQueue, workspaceRoot, models, httpRequest: { hosts: [listed.host] } }, async () => {
    const agentId = uniqueId('http');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const before = { listed: listed.seen.length, unlisted: unlisted.seen.length };
    const { inputSeq } = await t.agents.send(
      agentId,
      callsInput([
        { name: 'http_request', args: { method: 'POST', url: `http://${listed.host}/orders`, body: { item: 'book', quantity: 1 } } },
        { name: 'http_request', args: { method: 'POST', url: `http://${unlisted.host}/orders`, body: 'x' } },
      ]),
    );
    const waiting = await waitingForApproval(t.agents, agentId);
    expect(waiting.awaitingApproval).toHaveLength(1); // the refused call asks nobody
    const [asked] = waiting.awaitingApproval;
    expect(asked).toMatchObject({ toolName: 'http_request', reason: `http_request POST http://${listed.host}/orders` });
    expect(listed.seen.length).toBe(before.listed); // nothing is sent before the approval
    await t.agents.approve(agentId, asked.toolCallId, 'ops');
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });

    const [sent, refused] = await lastResults(agentId);
    expect(sent).toMatchObject({ status: 'Success', metadata: { http_status: 201 } });
    expect(sent.result).toMatch(/^HTTP 201 Created\ncontent-type: application\/json\n/);
    const request = listed.seen.slice(before.listed);
    expect(request).toEqual([
      { method: 'POST', url: '/orders', key: `${agentId}/${sent.toolCallId}`, contentType: 'application/json', body: '{"item":"book","quantity":1}' },
    ]);
    expect(refused.status).toBe('Failed');
    expect(refused.result).toContain(
      `The host ${unlisted.host} is not on this worker's allow-list for http_request, so nothing was sent. Allowed: ${listed.host}.`,
    );
    expect(unlisted.seen.length).toBe(before.unlisted);
  });
});

test('approval: false runs at once; an error status is a Failed result with the answer; the key is per call', async () => {
  await withWorker({ taskQueue, workspaceRoot, models, httpRequest: { hosts: [listed.host], approval: false } }, async () => {
    const agentId = uniqueId('http-auto');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    const before = listed.seen.length;
    await expect(
      t.agents.ask(
        agentId,
        callsInput([
          { name: 'http_request', args: { url: `http://${listed.host}/status`, headers: { 'Idempotency-Key': 'the model cannot choose it' } } },
          { name: 'http_request', args: { method: 'PUT', url: `http://${listed.host}/conflict`, body: 'again' } },
        ]),
      ),
    ).resolves.toMatchObject({ status: 'answered' });
    const [got, conflict] = await lastResults(agentId);
    expect(got).toMatchObject({ status: 'Success' });
    expect(conflict.status).toBe('Failed');
    expect(conflict.result).toMatch(/answered HTTP 409 Conflict\ncontent-type: text\/plain\n\norder already placed/);
    expect(listed.seen.slice(before).map((s) => [s.method, s.url, s.key])).toEqual([
      ['GET', '/status', `${agentId}/${got.toolCallId}`],
      ['PUT', '/conflict', `${agentId}/${conflict.toolCallId}`],
    ]);
  });
});

test('without an allow-list the tool is not offered', async () => {
  await withWorker({ taskQueue, workspaceRoot, models }, async () => {
    const agentId = uniqueId('http-none');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    await t.agents.ask(agentId, callsInput([{ name: 'http_request', args: { url: `http://${listed.host}/` } }]));
    const [result] = await lastResults(agentId);
    expect(result.status).toBe('Failed');
    expect(result.result).toMatch(/^Unknown tool "http_request"/);
  });
});
