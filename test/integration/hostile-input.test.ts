/**
 * What a careless service or a hostile sender can send never stalls or kills an agent: payloads the
 * worker cannot decode, decisions of the wrong type, replies of odd OpenAI-compatible servers that used
 * to kill the agent at its next continue-as-new, inconsistent snapshots, far-off timers.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import type { AgentSnapshot } from '../../agent/index';
import { FileBlobStore } from '../../common/codec/blob-store';
import { EncryptionCodec, parseKeys } from '../../common/codec/encryption-codec';
import { OffloadCodec } from '../../common/codec/offload-codec';
import { decideToolCallSignal, stopSignal } from '../../workflows/messages';
import { echoStep } from '../fixtures/scripts';
import { recordTool } from '../fixtures/test-tools';
import { useProviderServers } from '../support/provider-servers';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('hostile');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));

/** A client whose codec turns every payload into one the worker cannot read. */
function senderWith(codec: PayloadCodec): AgentClient {
  return new AgentClient(new Client({ connection: t.connection, dataConverter: { payloadCodecs: [codec] } }), taskQueue);
}
const relabel = (encoding: string): PayloadCodec => ({
  async encode(payloads: Payload[]) {
    return payloads.map((pl) => ({ ...pl, metadata: { ...pl.metadata, encoding: new TextEncoder().encode(encoding) } }));
  },
  async decode(payloads: Payload[]) {
    return payloads;
  },
});
const notJson: PayloadCodec = {
  async encode(payloads: Payload[]) {
    return payloads.map((pl) => ({ ...pl, data: new TextEncoder().encode('{"text": "unterminated') }));
  },
  async decode(payloads: Payload[]) {
    return payloads;
  },
};

const scripted = new ScriptedModelProvider({
  echo: echoStep,
  /** Two calls of `record` that need a decision, then an answer. */
  approvals: (req) => (req.step === 0 ? { toolCalls: [{ name: 'record', args: { label: 'a' } }] } : { text: 'decided' }),
  /** A notebook edit whose arguments arrive in a code fence (repaired), then what the Live Screen shows. */
  fenced: (req) => {
    if (req.step === 0) return { toolCalls: [{ name: 'memory_notebook_replace', args: '```json\n{"old_text": "", "new_text": "- likes tea"}\n```' }] };
    const last = req.messages[req.messages.length - 1];
    return { text: last.kind === 'live_screen' ? last.liveScreen : '(no live screen)' };
  },
  farOff: (req) =>
    req.step === 0 ? { toolCalls: [{ name: 'wait_until', args: { time: '+275760-09-13T00:00:00.000Z' } }] } : { text: 'not waiting that long' },
});

test('payloads the worker cannot decode are refused or dropped; the agent keeps answering', async () => {
  const agentId = uniqueId('undecodable');
  const offloadElsewhere = new OffloadCodec(new FileBlobStore(mkdtempSync(path.join(tmpdir(), 'lc-other-blobs-'))), 0);
  const senders = {
    'unknown encoding': senderWith(relabel('binary/foo')),
    'encrypted, worker has no key': senderWith(new EncryptionCodec(parseKeys(`k9:${randomBytes(32).toString('base64')}`))),
    'blob missing on the worker': senderWith(offloadElsewhere),
    'not JSON': senderWith(notJson),
  };
  await withWorker({ taskQueue, workspaceRoot, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:echo' });
    for (const [what, sender] of Object.entries(senders)) {
      await sender.signal(agentId, `signal: ${what}`);
      await sender.handle(agentId).signal(decideToolCallSignal, { toolCallId: 'x', approved: true });
      // An update carrying such a payload is refused before it is accepted, with the reason.
      const err = await sender.send(agentId, `update: ${what}`).catch((e) => e);
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(err.cause.message).toMatch(/could not be decoded/);
      expect(err.cause.nonRetryable).toBe(true);
      await expect(t.agents.ask(agentId, `after ${what}`)).resolves.toMatchObject({ status: 'answered', answer: { contents: [`echo: after ${what}`] } });
    }
    const stopper = senders['unknown encoding'];
    await stopper.handle(agentId).signal(stopSignal, { reason: 'x' }); // undecodable: a stop with the default reason
    const result = await t.agents.handle(agentId).result();
    expect(result).toMatchObject({ stopped: true, reason: 'stop requested' });
  });
  await maybeRecordHistory(t.agents.handle(agentId), 'undecodable-signals_v1.json');
  const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
  expect(events.some((e) => e.workflowTaskFailedEventAttributes)).toBe(false);
  const inputs = events.flatMap((e) => (e.workflowExecutionSignaledEventAttributes?.signalName === 'input' ? [e] : []));
  expect(inputs).toHaveLength(4); // the dropped signals are in history, and replay drops them the same way
});

test('a decision signal with "approved": "false" is dropped, not read as approval', async () => {
  const agentId = uniqueId('decision');
  await withWorker({ taskQueue, workspaceRoot, tools: [recordTool], models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:approvals', approval: { record: 'always' } });
    const { inputSeq } = await t.agents.send(agentId, 'go');
    const state = await eventually(async () => {
      const s = await t.agents.state(agentId);
      return s.awaitingApproval.length > 0 && s;
    });
    const toolCallId = state.awaitingApproval[0].toolCallId;
    await t.agents.handle(agentId).signal(decideToolCallSignal, { toolCallId, approved: 'false' } as never);
    await t.agents.handle(agentId).signal(decideToolCallSignal, { toolCallId, approved: 1 } as never);
    const after = await t.agents.state(agentId); // a query after the signals: they have been handled
    expect(after.awaitingApproval.map((a) => a.toolCallId)).toEqual([toolCallId]);
    expect(after.blockedOn).toBe('approval');
    await t.agents.handle(agentId).signal(decideToolCallSignal, { toolCallId, approved: false, reason: 'not now' });
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
    const results = (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results');
    expect(results).toMatchObject({ results: [{ status: 'Skipped' }] });
  });
});

test('odd replies of OpenAI-compatible servers are repaired as they enter: the agent continues as new, exports and imports', async () => {
  const agentId = uniqueId('odd-openai');
  p.openai.enqueue(
    // A tool call with "id": "", usage without prompt_tokens.
    { kind: 'stream', toolCalls: [{ id: '', name: 'record', arguments: '{"label":"one"}' }], rawUsage: { completion_tokens: 7 } },
    // Fractional token counts.
    { kind: 'stream', text: 'recorded', rawUsage: { prompt_tokens: 12.5, completion_tokens: 3.25, total_tokens: 15.75 } },
  );
  p.openai.respond = () => ({ kind: 'stream', text: 'later answer', rawUsage: { prompt_tokens: 1.5 } });
  await withWorker({ taskQueue, workspaceRoot, tools: [recordTool], models: [...p.models(), scripted] }, async () => {
    // A tiny history budget: the agent continues as new after the first turn.
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', historyBudgetBytes: 2_000 });
    const firstRun = (await t.agents.handle(agentId).describe()).runId;
    await expect(t.agents.ask(agentId, 'record one')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['recorded'] } });
    await expect(t.agents.ask(agentId, 'and now?')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['later answer'] } });
    await eventually(async () => (await t.agents.handle(agentId).describe()).runId !== firstRun, 30_000, 'a new run');
    await expect(t.agents.ask(agentId, 'still there?')).resolves.toMatchObject({ status: 'answered' });
    expect((await t.agents.handle(agentId).describe()).status.name).toBe('RUNNING');

    const history = await t.agents.history(agentId);
    const calls = history.flatMap((e) => (e.kind === 'model_output' ? e.toolCalls : []));
    expect(calls).toHaveLength(1);
    expect(calls[0].toolCallId).not.toBe('');
    expect(history.flatMap((e) => (e.kind === 'model_output' && e.usage ? [e.usage] : []))).toEqual(
      expect.arrayContaining([
        { inputTokens: 0, outputTokens: 7 },
        { inputTokens: 13, outputTokens: 3 },
      ]),
    );

    // The export imports again: the copy answers from the same context.
    const copyId = `${agentId}-copy`;
    await t.agents.restore(copyId, await t.agents.snapshot(agentId));
    await expect(t.agents.ask(copyId, 'copy?')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['later answer'] } });
    expect((await t.agents.history(copyId)).length).toBe(history.length + 2);
    await maybeRecordHistory(t.client.workflow.getHandle(agentId, firstRun), 'odd-provider-replies_v1.json');
  });
  p.openai.respond = undefined;
});

test('notebook edits with repaired arguments reach the Live Screen', async () => {
  const agentId = uniqueId('fenced');
  await withWorker({ taskQueue, workspaceRoot, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:fenced' });
    const outcome = await t.agents.ask(agentId, 'remember tea');
    expect(outcome).toMatchObject({ status: 'answered' });
    expect(outcome.status === 'answered' && outcome.answer.contents[0]).toContain('- likes tea');
    expect((await t.agents.state(agentId)).notebook).toBe('- likes tea');
  });
});

test('an inconsistent snapshot is refused with the reason; an imported one asks its approvals again', async () => {
  const agentId = uniqueId('approvals');
  await withWorker({ taskQueue, workspaceRoot, tools: [recordTool], models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:approvals', approval: { record: 'always' } });
    await t.agents.send(agentId, 'go');
    const state = await eventually(async () => {
      const s = await t.agents.state(agentId);
      return s.awaitingApproval.length > 0 && s;
    });
    const toolCallId = state.awaitingApproval[0].toolCallId;
    const snapshot = await t.agents.snapshot(agentId);

    // A file that grants the approval itself: imported, the call is asked about again.
    const granted: AgentSnapshot = { ...snapshot, approvals: { [toolCallId]: { status: 'approved', at: new Date().toISOString(), by: 'forger' } } };
    const copyId = `${agentId}-granted`;
    await t.agents.restore(copyId, granted);
    const copy = await eventually(async () => {
      const s = await t.agents.state(copyId);
      return s.awaitingApproval.length > 0 && s;
    });
    expect(copy.awaitingApproval[0].toolCallId).toBe(toolCallId);
    expect(copy.blockedOn).toBe('approval');

    // Out-of-order entries: refused before anything starts.
    const shuffled = { ...snapshot, entries: [...snapshot.entries].reverse() };
    await expect(t.agents.restore(`${agentId}-shuffled`, shuffled)).rejects.toThrow(/inconsistent/);
    // Started around the client, claiming the check continue-as-new does: only a continued run is believed.
    const forged = await t.client.workflow.start('agentWorkflow', {
      workflowId: `${agentId}-forged`,
      taskQueue,
      args: [{ snapshot: shuffled, checked: true }],
    });
    await expect(forged.result()).rejects.toMatchObject({ cause: { message: expect.stringMatching(/^Cannot start the agent: The snapshot is inconsistent/) } });
  });
});

test('refused input says it is final; exactly 256 KiB of text is accepted; a wait_until ten thousand years away is a Failed result', async () => {
  const agentId = uniqueId('limits');
  await withWorker({ taskQueue, workspaceRoot, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:farOff' });
    const err = await t.agents.send(agentId, 'x'.repeat(256 * 1024 + 1)).catch((e) => e);
    expect(err.cause).toMatchObject({ nonRetryable: true, type: 'INPUT_TOO_LARGE' });
    expect(err.cause.message).toMatch(/Input is 262145 bytes/);
    const outcome = await t.agents.ask(agentId, 'x'.repeat(256 * 1024));
    expect(outcome).toMatchObject({ status: 'answered', answer: { contents: ['not waiting that long'] } });
    const results = (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results');
    expect(results).toMatchObject({ results: [{ toolName: 'wait_until', status: 'Failed' }] });
    expect(results?.kind === 'tool_results' && results.results[0].result).toMatch(/more than a year away/);
  });
});

test('waiting for an input whose turn a reset cut off says reset', async () => {
  const agentId = uniqueId('reset-wait');
  await withWorker({ taskQueue, workspaceRoot, tools: [recordTool], models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:approvals', approval: { record: 'always' } });
    const { inputSeq } = await t.agents.send(agentId, 'go'); // stops at the approval
    await eventually(async () => (await t.agents.state(agentId)).blockedOn === 'approval');
    await t.agents.reset(agentId);
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toEqual({ inputSeq, status: 'reset' });
  });
});

test('the blob store does not depend on the current directory; a client that cannot store a blob fails before sending', async () => {
  const here = process.cwd();
  const before = new FileBlobStore().dir;
  process.chdir(tmpdir());
  try {
    expect(new FileBlobStore().dir).toBe(before);
  } finally {
    process.chdir(here);
  }
  const agentId = uniqueId('blob-fail');
  const cannotStore = senderWith(new OffloadCodec(new FileBlobStore('/dev/null/blobs'), 1024));
  await withWorker({ taskQueue, workspaceRoot, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:echo' });
    await expect(cannotStore.send(agentId, 'z'.repeat(200_000))).rejects.toThrow(/Cannot store a large payload in the blob store \/dev\/null\/blobs/);
    await expect(cannotStore.signal(agentId, 'z'.repeat(200_000))).rejects.toThrow(/Cannot store a large payload/);
    await expect(t.agents.ask(agentId, 'fine')).resolves.toMatchObject({ inputSeq: 1, status: 'answered' });
  });
});
