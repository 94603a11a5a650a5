/**
 * The compaction scenario the integration tests share: turns whose input and tool output are a few
 * hundred tokens each, an agent with a small context window, and fake-provider scripts that answer a
 * summary call with a summary and every other call with a tool call (after an input) or an answer.
 */
import { z } from 'zod';
import { defineTool } from '../../activities/index';
import { COMPACTION_INSTRUCTION } from '../../agent/index';
import type { RecordedAnthropicRequest, FakeAnthropicResponse } from './fake-anthropic-server';
import type { FakeOpenAIResponse, RecordedOpenAIRequest } from './fake-openai-server';

/** A context window whose input budget (1,500 tokens) a few turns pass. */
export const SMALL_WINDOW = 2_000;

/** Turn `k`'s input: about 150 tokens. */
export const turnText = (k: number) => `Turn ${k}: remember the number ${1000 + k}. ${'lorem ipsum dolor sit amet '.repeat(30)}`;

/** A tool whose output is about 100 tokens. */
export const lookupTool = defineTool({
  name: 'lookup',
  description: 'Looks something up.',
  parameters: z.object({}),
  execute: () => `found: ${'data point '.repeat(50)}`,
});

export const SUMMARY = 'SUMMARY: the user sent numbered turns with numbers to remember; the agent looked each up.';

export function isOpenAISummaryCall(r: RecordedOpenAIRequest): boolean {
  const first = r.body?.messages?.[0];
  return first?.role === 'system' && first.content === COMPACTION_INSTRUCTION;
}

export function isAnthropicSummaryCall(r: RecordedAnthropicRequest): boolean {
  return r.body?.system?.[0]?.text === COMPACTION_INSTRUCTION;
}

/** OpenAI: a summary for a summary call, a lookup after an input, an answer after the results. */
export function openaiScript(r: RecordedOpenAIRequest): FakeOpenAIResponse {
  if (isOpenAISummaryCall(r)) return { kind: 'stream', text: SUMMARY };
  const messages = r.body.messages as Array<{ role: string }>;
  if (messages[messages.length - 1].role === 'user') return { kind: 'stream', toolCalls: [{ name: 'lookup', arguments: '{}' }] };
  return { kind: 'stream', text: 'Noted.' };
}

export function anthropicScript(r: RecordedAnthropicRequest): FakeAnthropicResponse {
  if (isAnthropicSummaryCall(r)) return { kind: 'stream', text: SUMMARY };
  const messages = r.body.messages as Array<{ role: string; content: Array<{ type: string }> }>;
  const last = messages[messages.length - 1];
  if (last.content.some((b) => b.type === 'tool_result')) return { kind: 'stream', text: 'Noted.' };
  return { kind: 'stream', toolCalls: [{ name: 'lookup', input: {} }] };
}

/** OpenAI messages: every tool call answered by a tool message after it, and every tool message answering a call before it. */
export function openaiOrphans(messages: Array<{ role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string }>): string[] {
  const called = new Set<string>();
  const answered = new Set<string>();
  const orphans: string[] = [];
  for (const m of messages) {
    for (const c of m.tool_calls ?? []) called.add(c.id);
    if (m.role === 'tool') {
      if (!called.has(m.tool_call_id!)) orphans.push(`result ${m.tool_call_id}`);
      answered.add(m.tool_call_id!);
    }
  }
  for (const id of called) if (!answered.has(id)) orphans.push(`call ${id}`);
  return orphans;
}
