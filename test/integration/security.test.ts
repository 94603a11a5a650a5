/**
 * Security: with the AES-256-GCM codec on, no plaintext prompt reaches the server's database (or the
 * blob store); keys rotate (old keys still decrypt); the codec server decodes for the Web UI; and API
 * keys never appear in history, logs or exported snapshots.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import { FileBlobStore } from '../../common/codec/blob-store';
import { startCodecServer } from '../../common/codec/codec-server';
import { type CodecOptions, livecontextDataConverter, payloadCodecs } from '../../common/codec/data-converter';
import { parseKeys } from '../../common/codec/encryption-codec';
import { createLivecontextWorker } from '../../worker/create-worker';
import { echoScript } from '../fixtures/scripts';
import { startChildWorker } from '../support/child-worker';
import { startFakeOpenAIServer } from '../support/fake-openai-server';
import { connectTest, uniqueId, workflowBundle } from '../support/temporal';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureTemporalCli } = require('../../scripts/temporal-cli.cjs');

const key = () => randomBytes(32).toString('base64');
const k1 = key();
const k2 = key();

async function runTurn(address: string, namespace: string, codec: CodecOptions | undefined, agentId: string, text: string, start = true) {
  const connection = await Connection.connect({ address });
  const native = await NativeConnection.connect({ address });
  const dataConverter = codec ? livecontextDataConverter(codec) : {};
  const taskQueue = `sec-${agentId}`;
  const agents = new AgentClient(new Client({ connection, namespace, dataConverter }), taskQueue);
  const worker = await createLivecontextWorker({
    connection: native,
    namespace,
    taskQueue,
    workflowBundle: workflowBundle(),
    dataConverter,
    models: [new ScriptedModelProvider({ echo: echoScript })],
  });
  try {
    return await worker.runUntil(async () => {
      if (start) await agents.start(agentId, { model: 'scripted:echo' });
      const outcome = await agents.ask(agentId, text);
      return { outcome, history: await agents.history(agentId), raw: await agents.handle(agentId).fetchHistory() };
    });
  } finally {
    await connection.close();
    await native.close();
  }
}

function bytesOf(dir: string): Buffer {
  const files = readdirSync(dir, { recursive: true }) as string[];
  return Buffer.concat(
    files
      .map((f) => path.join(dir, f))
      .filter((f) => statSync(f).isFile())
      .map((f) => readFileSync(f)),
  );
}

test('codec on: no plaintext prompt in the server database or the blob store; codec off: there is (control)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lc-db-'));
  const blobs = mkdtempSync(path.join(tmpdir(), 'lc-blobs-'));
  const exe = ensureTemporalCli();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ...(exe ? { executable: { type: 'existing-path', path: exe } } : {}),
      dbFilename: path.join(dir, 'temporal.db'),
      extraArgs: ['--log-level', 'error'],
    },
  });
  const encrypted = { encryption: parseKeys(`k1:${k1}`), offload: { store: new FileBlobStore(blobs), thresholdBytes: 64 * 1024 } };
  try {
    const secret = await runTurn(env.address, 'default', encrypted, 'secret-agent', 'CANARY-ENCRYPTED-7f3a');
    expect(secret.outcome).toMatchObject({ status: 'answered', answer: { contents: ['echo: CANARY-ENCRYPTED-7f3a'] } });
    // Large enough to be offloaded: the blob store must hold ciphertext only.
    const big = `CANARY-OFFLOADED-51c2 ${'x'.repeat(100_000)}`;
    await expect(runTurn(env.address, 'default', encrypted, 'secret-agent', big, false)).resolves.toMatchObject({ outcome: { status: 'answered' } });
    expect(readdirSync(blobs).length).toBeGreaterThan(0);
    const plain = await runTurn(env.address, 'default', { offload: false }, 'plain-agent', 'CANARY-PLAIN-9b2c');
    expect(plain.outcome).toMatchObject({ status: 'answered' });
  } finally {
    await env.teardown();
  }
  const db = bytesOf(dir);
  expect(db.includes('CANARY-PLAIN-9b2c')).toBe(true); // the check can fail: plaintext is visible without the codec
  expect(db.includes('CANARY-ENCRYPTED')).toBe(false);
  expect(db.includes('CANARY-OFFLOADED')).toBe(false);
  expect(bytesOf(blobs).includes('CANARY-OFFLOADED')).toBe(false);
}, 180_000);

test('key rotation: old keys still decrypt, the current key encrypts; the codec server decodes for the UI', async () => {
  const t = await connectTest('unused');
  const agentId = uniqueId('rotating');
  try {
    await runTurn(process.env.LIVECONTEXT_TEST_ADDRESS!, 'default', { encryption: parseKeys(`k1:${k1}`), offload: false }, agentId, 'before rotation');
    const after = await runTurn(
      process.env.LIVECONTEXT_TEST_ADDRESS!,
      'default',
      { encryption: parseKeys(`k2:${k2},k1:${k1}`), offload: false },
      agentId,
      'after rotation',
      false,
    );
    expect(after.outcome).toMatchObject({ status: 'answered', answer: { contents: ['echo: after rotation'] } });
    expect(after.history.filter((e) => e.kind === 'model_input').map((e) => e.kind === 'model_input' && e.sections[0].content)).toEqual([
      'before rotation',
      'after rotation',
    ]);
    const keyIds = (after.raw.events ?? [])
      .flatMap((e) => e.activityTaskCompletedEventAttributes?.result?.payloads ?? [])
      .map((p) => Buffer.from(p.metadata!['encryption-key-id']!).toString());
    expect(keyIds).toEqual(['k1', 'k2']);

    // Without k1, the first turn cannot be read.
    const firstResult = (after.raw.events ?? []).flatMap((e) => e.activityTaskCompletedEventAttributes?.result?.payloads ?? [])[0];
    await expect(payloadCodecs({ encryption: parseKeys(`k2:${k2}`), offload: false })[0].decode([firstResult])).rejects.toThrow(/key "k1"/);

    // The codec server turns the UI's encrypted payloads back into JSON.
    const server = await startCodecServer({ codecs: payloadCodecs({ encryption: parseKeys(`k2:${k2},k1:${k1}`), offload: false }), port: 0 });
    try {
      const raw = await new Client({ connection: t.connection }).workflow.getHandle(agentId).fetchHistory(); // no codec: ciphertext
      const payload = (raw.events ?? []).flatMap((e) => e.activityTaskCompletedEventAttributes?.result?.payloads ?? [])[0];
      const b64 = (u?: Uint8Array | null) => Buffer.from(u ?? new Uint8Array()).toString('base64');
      const body = { payloads: [{ metadata: Object.fromEntries(Object.entries(payload.metadata!).map(([k, v]) => [k, b64(v)])), data: b64(payload.data) }] };
      const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://localhost:8233' },
        body: JSON.stringify(body),
      });
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
      const decoded = (await res.json()) as { payloads: Array<{ data: string }> };
      expect(Buffer.from(decoded.payloads[0].data, 'base64').toString()).toContain('echo: before rotation');
    } finally {
      server.close();
    }
  } finally {
    await t.close();
  }
});

test('API keys never appear in history, logs or exported snapshots', async () => {
  const secret = 'sk-canary-SECRET-0123456789';
  const fake = await startFakeOpenAIServer({ apiKey: secret });
  const taskQueue = uniqueId('keys');
  const t = await connectTest(taskQueue);
  const worker = await startChildWorker({
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')),
    controlDir: mkdtempSync(path.join(tmpdir(), 'lc-ctl-')),
    extraEnv: { OPENAI_API_KEY: secret, OPENAI_BASE_URL: `${fake.url}/v1`, LIVECONTEXT_DEBUG: 'all' },
  });
  try {
    const agentId = uniqueId('keyed');
    fake.enqueue({ kind: 'stream', text: 'hello' }, { kind: 'error', status: 401 }, { kind: 'stream', text: 'again' });
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    await expect(t.agents.ask(agentId, 'hi')).resolves.toMatchObject({ status: 'answered' });
    await expect(t.agents.ask(agentId, 'a 401 please')).resolves.toMatchObject({ status: 'error' }); // error messages too
    await t.agents.retry(agentId);
    await expect(t.agents.waitForAnswer(agentId, 2)).resolves.toMatchObject({ status: 'answered' });
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${secret}`); // the key was used…

    const raw = await t.agents.handle(agentId).fetchHistory();
    const payloadText = (raw.events ?? []).flatMap((e) => JSON.stringify(e)).join('\n');
    const decodedPayloads = JSON.stringify(await t.agents.history(agentId)) + JSON.stringify(await t.agents.state(agentId));
    const snapshot = JSON.stringify(await t.agents.snapshot(agentId));
    const everything = [payloadText, Buffer.from(payloadText).toString('base64'), decodedPayloads, snapshot, worker.output()];
    // …but it is nowhere else: not in history (raw or decoded), state, snapshot, or the worker's debug logs.
    for (const text of everything) expect(text).not.toContain(secret);
    expect(Buffer.from(payloadText).includes(secret.slice(3, 20))).toBe(false);
    expect(worker.output()).toMatch(/\[Provider\]|\[History\]/); // debug logging was on
  } finally {
    await worker.kill('SIGTERM');
    await fake.close();
    await t.close();
  }
});
