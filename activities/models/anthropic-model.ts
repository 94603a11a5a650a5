/**
 * The Anthropic Messages adapter through the official `@anthropic-ai/sdk`, streaming. The SDK's retries
 * are off; `max_tokens` is always set; a stream without `message_stop` is reported as an error.
 */
import { BaseModel } from './base-model';
import Anthropic from '@anthropic-ai/sdk';
import {
  type ContextMessage,
  DeltaSequencer,
  type FinishReason,
  type MessageDelta,
  type ModelRequest,
  type StreamOptions,
  type ToolSpec,
} from '../../agent/index';
import { answerToolChoice, answerToolSpec, toAnthropicRequest, toAnthropicToolChoice } from './anthropic-messages';
import type { ModelProvider } from './model-router';
import { keyReadiness, missingKey } from './openai-model';
import { ModelError, mapProviderError } from './provider-errors';
import { extraRequestFields } from './request-extra';
import { anthropicIdentity } from './request-identity';
import { StreamToolCallIds } from './stream-tool-call-ids';

/** Anthropic requires max_tokens; this is used when the agent sets none. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

export interface AnthropicProviderOptions {
  id?: string;
  apiKey?: string;
  baseURL?: string;
  /** Automatic prompt-cache breakpoints (seed 002 CacheConfig strategy auto). Default true. */
  cache?: boolean;
  /** Send the agent's opaque id as `metadata.user_id` (seed 002 requestMetadata, see request-identity.ts). Default true. */
  requestMetadata?: boolean;
}

/** From the worker's environment: ANTHROPIC_API_KEY and optionally ANTHROPIC_BASE_URL. */
export function anthropicProvider(options: AnthropicProviderOptions = {}): ModelProvider {
  const id = options.id ?? 'anthropic';
  let client: Anthropic | undefined;
  return {
    id,
    create(modelId) {
      if (!client) {
        const apiKey = options.apiKey ?? process.env.ANTHROPIC_API_KEY;
        if (!apiKey) throw missingKey('ANTHROPIC_API_KEY', id);
        const baseURL = options.baseURL ?? process.env.ANTHROPIC_BASE_URL ?? undefined;
        client = new Anthropic({ apiKey, maxRetries: 0, timeout: 30 * 60 * 1000, ...(baseURL ? { baseURL } : {}) });
      }
      return new AnthropicMessagesModel(client, id, modelId, { cache: options.cache ?? true, requestMetadata: options.requestMetadata ?? true });
    },
    readiness: () => keyReadiness(options.apiKey ?? process.env.ANTHROPIC_API_KEY, 'ANTHROPIC_API_KEY', id),
  };
}

const STOP: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
  pause_turn: 'other',
};

export class AnthropicMessagesModel extends BaseModel {
  constructor(
    private readonly client: Anthropic,
    providerId: string,
    modelId: string,
    private readonly wire: { cache: boolean; requestMetadata: boolean },
  ) {
    super(providerId, 'anthropic-messages', modelId);
  }

  request(messages: readonly ContextMessage[], toolSpecs: readonly ToolSpec[], systemPrompt: string | undefined, options: StreamOptions): ModelRequest {
    return { rendering: 'anthropic-messages', body: this.body(messages, toolSpecs, systemPrompt, options).body as unknown as Record<string, unknown> };
  }

  private body(messages: readonly ContextMessage[], toolSpecs: readonly ToolSpec[], systemPrompt: string | undefined, options: StreamOptions) {
    const c = this.config;
    // A typed answer comes through a tool of its own (see answerToolSpec); the agent's tool choice gives way to it.
    const answerTool = options.responseFormat ? answerToolSpec(options.responseFormat, toolSpecs) : undefined;
    const parts = toAnthropicRequest(messages, systemPrompt, answerTool ? [...toolSpecs, answerTool] : toolSpecs, {
      providerId: this.providerId,
      cache: this.wire.cache,
      ...(options.cacheTtl ? { cacheTtl: options.cacheTtl } : {}),
    });
    const body = {
      model: c.modelId,
      max_tokens: c.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
      stream: true as const,
      ...parts,
      ...(answerTool
        ? { tool_choice: answerToolChoice(c.extra) }
        : toolSpecs.length && c.toolChoice
          ? { tool_choice: toAnthropicToolChoice(c.toolChoice) }
          : {}),
      ...(c.temperature !== undefined ? { temperature: c.temperature } : {}),
      ...(c.topP !== undefined ? { top_p: c.topP } : {}),
      ...(c.stopSequences?.length ? { stop_sequences: c.stopSequences } : {}),
      ...anthropicIdentity(options.requestMetadata, this.wire.requestMetadata),
      ...extraRequestFields(c.extra),
    } as Anthropic.Messages.MessageCreateParamsStreaming;
    return { body, answerTool };
  }

  async *stream(
    messages: readonly ContextMessage[],
    toolSpecs: readonly ToolSpec[],
    systemPrompt: string | undefined,
    options: StreamOptions,
  ): AsyncIterable<MessageDelta> {
    const d = new DeltaSequencer({ providerRaw: options.providerRaw });
    const c = this.config;
    const { body, answerTool } = this.body(messages, toolSpecs, systemPrompt, options);
    let started = false;
    let stopped = false;
    let finish: FinishReason = 'stop';
    const ids = new StreamToolCallIds();
    const blocks = new Map<number, { type: string; id?: string; text?: number }>();
    let textSent = false;
    let toolCalls = 0;
    let input = 0;
    let cached = 0;
    let output = 0;
    try {
      const { data: stream, request_id } = await this.client.messages.create(body, { signal: options.signal }).withResponse();
      for await (const event of stream) {
        d.observe(event);
        switch (event.type) {
          case 'message_start': {
            const u = event.message.usage;
            cached = u.cache_read_input_tokens ?? 0;
            // Anthropic counts cache reads and writes apart from input_tokens; usage here is all input.
            input = u.input_tokens + cached + (u.cache_creation_input_tokens ?? 0);
            output = u.output_tokens ?? 0;
            yield d.next({ kind: 'start', modelId: event.message.model ?? c.modelId, requestId: request_id ?? event.message.id });
            started = true;
            break;
          }
          case 'content_block_start': {
            const b = event.content_block;
            if (b.type === 'tool_use' && b.name === answerTool?.name) {
              blocks.set(event.index, { type: 'answer', text: 0 }); // the answer's text, not a tool call
              break;
            }
            // Compatible servers may send an empty id, or one id for several calls: made unique here.
            const id = b.type === 'tool_use' ? ids.idFor(b.id, `toolu_${event.index}`) : undefined;
            blocks.set(event.index, { type: b.type, ...(id ? { id } : {}) });
            if (b.type === 'tool_use') {
              toolCalls++;
              yield d.next({ kind: 'tool_call_start', toolCallId: id!, toolName: b.name });
            }
            break;
          }
          case 'content_block_delta': {
            const x = event.delta;
            const answer = blocks.get(event.index);
            if (answer?.type === 'answer' && x.type === 'input_json_delta') {
              if (!x.partial_json) break;
              // Text before the answer (a preamble) stays apart from its JSON.
              const text = answer.text === 0 && textSent ? `\n${x.partial_json}` : x.partial_json;
              answer.text! += text.length;
              textSent = true;
              yield d.next({ kind: 'text', text });
            } else if (x.type === 'text_delta') {
              textSent ||= x.text.length > 0;
              yield d.next({ kind: 'text', text: x.text });
            } else if (x.type === 'thinking_delta') yield d.next({ kind: 'thinking', text: x.thinking });
            else if (x.type === 'signature_delta') yield d.next({ kind: 'thinking', text: '', signature: x.signature });
            else if (x.type === 'input_json_delta') {
              const id = blocks.get(event.index)?.id;
              if (id) yield d.next({ kind: 'tool_call_args', toolCallId: id, argsTextDelta: x.partial_json });
            }
            break;
          }
          case 'content_block_stop': {
            const block = blocks.get(event.index);
            if (block?.type === 'tool_use' && block.id) yield d.next({ kind: 'tool_call_end', toolCallId: block.id });
            // An answer tool called without input streams none: its answer is the empty object.
            if (block?.type === 'answer' && block.text === 0) {
              textSent = true;
              yield d.next({ kind: 'text', text: '{}' });
            }
            break;
          }
          case 'message_delta':
            if (event.delta.stop_reason) finish = STOP[event.delta.stop_reason] ?? 'other';
            if (event.usage?.output_tokens !== undefined) output = event.usage.output_tokens;
            break;
          case 'message_stop':
            stopped = true;
            break;
        }
      }
    } catch (err) {
      if (!started) yield d.next({ kind: 'start', modelId: c.modelId });
      yield d.next({ kind: 'error', ...mapProviderError(err) });
      return;
    }
    if (!started) yield d.next({ kind: 'start', modelId: c.modelId });
    if (answerTool && finish === 'tool_calls' && toolCalls === 0) finish = 'stop'; // only the answer tool was called
    if (!stopped) {
      yield d.next({ kind: 'error', code: ModelError.StreamIncomplete, message: 'The Anthropic stream ended without message_stop.', retryable: true });
      return;
    }
    // Anthropic reports no total: input (cache reads and writes included) plus output.
    yield d.next({
      kind: 'usage',
      usage: { inputTokens: input, outputTokens: output, totalTokens: input + output, ...(cached ? { cachedInputTokens: cached } : {}) },
    });
    yield d.next({ kind: 'done', finishReason: finish });
  }
}
