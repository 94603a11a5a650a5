/**
 * A full session on the real dev server that alternates OpenAI and Anthropic turns with tool calls —
 * through the official SDKs, against local servers that validate requests as strictly as the real
 * services — and stays valid for both.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HistoryEntry } from '../../agent/index';
import type { AgentStatus } from '../../workflows/messages';
import { recordTool } from '../fixtures/test-tools';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('mixed');

test('OpenAI plans, Anthropic executes, then the other way round; every request valid for its provider', async () => {
  const agentId = uniqueId('mixed');
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  let history: HistoryEntry[] = [];
  let state: AgentStatus | undefined;
  // Turn 1: OpenAI after input (two tool calls in one turn), Anthropic after tool results.
  p.openai.enqueue({
    kind: 'stream',
    text: 'Recording both.',
    toolCalls: [
      { name: 'record', arguments: '{"label":"one"}' },
      { name: 'record', arguments: '{"label":"two"}' },
    ],
    usage: { promptTokens: 120, completionTokens: 20 },
  });
  p.anthropic.enqueue(
    { kind: 'stream', thinking: { text: 'One more.', signature: 'sig-a1' }, toolCalls: [{ name: 'record', input: { label: 'three' } }] },
    { kind: 'stream', text: 'All three recorded.' },
  );
  const prices = { 'openai:gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 }, 'anthropic:': { input: 3, output: 15 } };
  await withWorker({ taskQueue, workspaceRoot, tools: [recordTool], models: p.models(), prices }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', executorModel: 'anthropic:claude-sonnet-4-6', systemInstruction: 'Be brief.' });
    const first = await t.agents.ask(agentId, 'record three things');
    expect(first).toMatchObject({ status: 'answered', answer: { contents: ['All three recorded.'], invocation: { providerId: 'anthropic' } } });

    // Turn 2: swap roles. Anthropic after input (two calls), OpenAI after the results.
    await t.agents.configure(agentId, { model: 'anthropic:claude-sonnet-4-6', executorModel: 'openai:gpt-4.1-mini' });
    p.anthropic.enqueue({
      kind: 'stream',
      text: 'Two more.',
      toolCalls: [
        { name: 'record', input: { label: 'four' } },
        { name: 'record', input: { label: 'five' } },
      ],
    });
    p.openai.enqueue({ kind: 'stream', text: 'Done: five in all.' });
    const second = await t.agents.ask(agentId, 'two more please');
    expect(second).toMatchObject({ status: 'answered', answer: { contents: ['Done: five in all.'], invocation: { providerId: 'openai' } } });
    history = await t.agents.history(agentId);
    state = await t.agents.state(agentId);
  });

  // Every request was accepted by the strict fakes (no 400s), and each saw the whole conversation.
  expect(p.openai.requests).toHaveLength(2);
  expect(p.anthropic.requests).toHaveLength(3);
  const lastOpenAI = p.openai.requests[1].body;
  expect(lastOpenAI.messages.map((m: { role: string }) => m.role)).toEqual([
    'system',
    'user',
    'assistant',
    'tool',
    'tool',
    'assistant',
    'tool',
    'assistant',
    'user',
    'assistant',
    'tool',
    'tool',
  ]);
  expect(lastOpenAI.stream_options).toEqual({ include_usage: true });
  const lastAnthropic = p.anthropic.requests[2].body;
  expect(lastAnthropic.system[0].text).toBe('Be brief.');
  expect(lastAnthropic.max_tokens).toBeGreaterThan(0);
  expect(lastAnthropic.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
  // Anthropic's own thinking goes back to Anthropic with its signature; OpenAI never sees it.
  expect(JSON.stringify(lastAnthropic.messages)).toContain('"signature":"sig-a1"');
  expect(JSON.stringify(lastOpenAI)).not.toContain('One more.');
  // The two tool results of one turn arrive in one user message, tool_result blocks first.
  const results = lastAnthropic.messages[2].content;
  expect(results.slice(0, 2).map((b: { type: string }) => b.type)).toEqual(['tool_result', 'tool_result']);

  const outputs = history.filter((e) => e.kind === 'model_output');
  expect(outputs.map((e) => e.kind === 'model_output' && e.invocation.providerId)).toEqual(['openai', 'anthropic', 'anthropic', 'anthropic', 'openai']);
  expect(outputs[0]).toMatchObject({ usage: { inputTokens: 120, outputTokens: 20 } });
  expect(outputs[1]).toMatchObject({ thinking: 'One more.', thinkingSignature: 'sig-a1' });

  // Usage per call, cached tokens from both providers' prompt caches, cost from the price table;
  // totals come from the recorded entries only.
  const usages = outputs.map((e) => (e.kind === 'model_output' ? e.usage! : undefined)!);
  expect(usages[0].costUsd).toBeCloseTo((120 * 2 + 20 * 8) / 1e6, 10);
  expect(usages[4].cachedInputTokens).toBeGreaterThan(0); // OpenAI: the second request shares its prefix with the first
  expect(usages[2].cachedInputTokens).toBeGreaterThan(0); // Anthropic: automatic breakpoints read back
  expect(state!.usage.inputTokens).toBe(usages.reduce((n, u) => n + u.inputTokens, 0));
  expect(state!.usage.cachedInputTokens).toBe(usages.reduce((n, u) => n + (u.cachedInputTokens ?? 0), 0));
  expect(state!.usage.costUsd).toBeCloseTo(
    usages.reduce((n, u) => n + (u.costUsd ?? 0), 0),
    10,
  );
});
