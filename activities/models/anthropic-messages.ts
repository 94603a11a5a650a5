/**
 * Context messages → an Anthropic Messages request (seed 000's Anthropic rules): system prompt at the
 * top level; strict user/assistant alternation; all tool results of one model turn in one user message
 * with the `tool_result` blocks first; an input's images as `image` blocks; thinking kept with its
 * signature only when it came from Anthropic; cache breakpoints placed automatically on the stable prefix.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { type ContextMessage, type ResponseFormat, type ToolChoice, type ToolSpec, summaryText, unwrap } from '../../agent/index';
import { type Attachment, attachmentLabel } from '../../agent/attachments';
import { renderSections, renderToolResult } from './render-text';

type MessageParam = Anthropic.Messages.MessageParam;
type Block = Anthropic.Messages.ContentBlockParam;
type TextBlock = Anthropic.Messages.TextBlockParam;

/** How long Anthropic keeps a cached prefix; absent: its default (5 minutes). */
export type CacheTtl = '5m' | '1h';

/** Anthropic takes at most this many cache breakpoints per request. */
const MAX_BREAKPOINTS = 4;

export interface AnthropicRequestParts {
  system?: TextBlock[];
  messages: MessageParam[];
  tools?: Anthropic.Messages.Tool[];
}

export function toAnthropicRequest(
  messages: readonly ContextMessage[],
  system: string | undefined,
  toolSpecs: readonly ToolSpec[],
  options: { providerId: string; cache: boolean; cacheTtl?: CacheTtl },
): AnthropicRequestParts {
  let summary: TextBlock | undefined;
  const out: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    // Alternation is strict: same-role neighbours are merged (tool_result blocks stay first).
    if (last && last.role === role) last.content = mergeBlocks(last.content as Block[], blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    const liveScreen = message.kind === 'live_screen' ? message.liveScreen : undefined;
    const m = unwrap(message);
    const screen: Block[] = liveScreen ? [{ type: 'text', text: liveScreen }] : [];
    switch (m.kind) {
      case 'summary':
        // A block of its own, so a breakpoint can end the prefix there (it may share the user message with the next input).
        summary = { type: 'text', text: summaryText(m) };
        push('user', [summary]);
        break;
      case 'model_input':
        // Images before the text, as Anthropic advises for image questions; the LiveScreen stays last.
        push('user', [...(m.attachments ?? []).flatMap(imageBlocks), ...textBlock(renderSections(m.sections)), ...screen]);
        break;
      case 'model_output': {
        const blocks: Block[] = [];
        // A signature only verifies on the provider that made it; other providers' reasoning is dropped.
        if (m.thinking && m.thinkingSignature && m.invocation.providerId === options.providerId) {
          blocks.push({ type: 'thinking', thinking: m.thinking, signature: m.thinkingSignature });
        }
        blocks.push(...textBlock(m.contents.join('')));
        for (const c of m.toolCalls) blocks.push({ type: 'tool_use', id: c.toolCallId, name: c.toolName, input: c.arguments ?? {} });
        push('assistant', blocks);
        break;
      }
      case 'tool_results': {
        const blocks: Block[] = m.results.map((r) => ({
          type: 'tool_result' as const,
          tool_use_id: r.toolCallId,
          content: renderToolResult(r),
          ...(r.status !== 'Success' ? { is_error: true } : {}),
        }));
        if (m.executeError) blocks.push({ type: 'text', text: `Execution error: ${m.executeError}` });
        push('user', [...blocks, ...screen]);
        break;
      }
      default:
        break; // unknown kinds (system handled separately, future kinds) are ignored safely
    }
  }
  if (out[0]?.role === 'assistant') out.unshift({ role: 'user', content: [{ type: 'text', text: '(earlier conversation omitted)' }] });

  const tools = toolSpecs.map((s) => ({ name: s.name, description: s.description, input_schema: s.parameters as Anthropic.Messages.Tool.InputSchema }));
  const systemBlocks = system ? [{ type: 'text' as const, text: system }] : undefined;
  if (options.cache) placeCacheBreakpoints(tools, systemBlocks, summary, out, options.cacheTtl);
  return { messages: out, ...(systemBlocks ? { system: systemBlocks } : {}), ...(tools.length ? { tools } : {}) };
}

/**
 * Seed 002 `CacheConfig { strategy: auto }`: up to 4 breakpoints on the stable prefix — the tools, the
 * system prompt, a compaction's summary (the prefix stays the same until the next compaction), the
 * previous user turn (older turns) and the newest message (read back next call). Over 4, the tools'
 * goes first (the system prompt's covers them), then the previous turn's.
 */
function placeCacheBreakpoints(
  tools: Anthropic.Messages.Tool[],
  system: TextBlock[] | undefined,
  summary: TextBlock | undefined,
  messages: MessageParam[],
  ttl: CacheTtl | undefined,
) {
  const toolMark = tools.length ? tools[tools.length - 1] : undefined;
  const systemMark = system?.length ? system[system.length - 1] : undefined;
  const lastBlock = (i: number | undefined) => {
    if (i === undefined || i < 0) return undefined;
    const blocks = messages[i].content as Block[];
    const last = blocks[blocks.length - 1];
    return last.type === 'thinking' || last.type === 'redacted_thinking' ? undefined : last;
  };
  const userIdx = messages.flatMap((m, i) => (m.role === 'user' ? [i] : []));
  const previousTurn = lastBlock(userIdx[userIdx.length - 2]);
  const newest = lastBlock(messages.length - 1);
  let marks: Array<{ cache_control?: Anthropic.Messages.CacheControlEphemeral | null } | undefined> = [toolMark, systemMark, summary, previousTurn, newest];
  marks = [...new Set(marks.filter((m) => m !== undefined))];
  if (marks.length > MAX_BREAKPOINTS && systemMark) marks = marks.filter((m) => m !== toolMark);
  if (marks.length > MAX_BREAKPOINTS) marks = marks.filter((m) => m !== previousTurn);
  for (const m of marks) m!.cache_control = ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' };
}

function mergeBlocks(a: Block[], b: Block[]): Block[] {
  const all = [...a, ...b];
  return [...all.filter((x) => x.type === 'tool_result'), ...all.filter((x) => x.type !== 'tool_result')];
}

/** One image block (after a text block with its name, when it has one). */
function imageBlocks(a: Attachment): Block[] {
  const label = attachmentLabel(a);
  const source: Anthropic.Messages.ImageBlockParam['source'] =
    a.url !== undefined ? { type: 'url', url: a.url } : { type: 'base64', media_type: a.mediaType!, data: a.data! };
  return [...(label ? textBlock(label) : []), { type: 'image', source }];
}

/** Anthropic rejects empty text blocks. */
function textBlock(text: string): TextBlock[] {
  return text.trim() === '' ? [] : [{ type: 'text', text }];
}

export function toAnthropicToolChoice(choice: ToolChoice): Anthropic.Messages.ToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  return { type: 'tool', name: choice.name };
}

/** The name of the tool a typed answer is given through, unless a real tool has it (then `_` is added). */
export const ANSWER_TOOL_NAME = 'final_answer';

/**
 * A typed answer on Anthropic: a tool whose input schema is the answer's schema. Its call is the
 * answer (the adapter streams its input as the answer's text); it never becomes a tool call in history.
 */
export function answerToolSpec(format: ResponseFormat, tools: readonly ToolSpec[]): ToolSpec {
  let name = ANSWER_TOOL_NAME;
  while (tools.some((t) => t.name === name)) name += '_';
  return {
    name,
    description: `Gives your final answer (${format.name}) as this tool's input, in the shape its schema asks for. Call it once you have everything you need; call the other tools before it when you need them.`,
    parameters: format.schema,
  };
}

/**
 * `any`: the model calls a real tool or answers through the answer tool, never in plain text. Extended
 * thinking refuses forced tool use, so with thinking on the choice is `auto` (the tool's description
 * asks for it, and a text answer is still parsed leniently).
 */
export function answerToolChoice(extra: Record<string, unknown> | undefined): Anthropic.Messages.ToolChoice {
  const thinking = extra?.thinking as { type?: unknown } | undefined;
  return thinking && thinking.type !== 'disabled' ? { type: 'auto' } : { type: 'any' };
}
