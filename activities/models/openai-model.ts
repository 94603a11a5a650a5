/**
 * The OpenAI Chat Completions adapter (also Azure OpenAI and any OpenAI-compatible server: Ollama,
 * vLLM, LM Studio) through the official `openai` SDK, streaming with usage. The SDK's retries are off.
 * The SDK accepts a stream that ends without a finish_reason; this adapter reports it as an error.
 */
import { BaseModel } from './base-model';
import OpenAI, { AzureOpenAI } from 'openai';
import { type ContextMessage, DeltaSequencer, type MessageDelta, type ModelRequest, type StreamOptions, type ToolSpec } from '../../agent/index';
import type { FinishReason, StreamUsage } from '../../agent/index';
import type { ModelProvider, Readiness } from './model-router';
import { toOpenAIMessages, toOpenAIResponseFormat, toOpenAITools, toOpenAIToolChoice } from './openai-messages';
import { ModelError, mapProviderError, toApplicationFailure } from './provider-errors';
import { extraRequestFields } from './request-extra';
import { openaiIdentity } from './request-identity';
import { StreamToolCallIds } from './stream-tool-call-ids';

export interface OpenAIProviderOptions {
  /** Provider id in model names (`openai:…`, `azure:…`, or your own for a compatible server). */
  id?: string;
  apiKey?: string;
  baseURL?: string;
  /** Use Azure OpenAI (endpoint + api version), as the SDK's AzureOpenAI client. */
  azure?: { endpoint?: string; apiVersion?: string; deployment?: string };
  /** Send `max_tokens` instead of `max_completion_tokens` (older compatible servers). */
  legacyMaxTokens?: boolean;
  /** Send the agent's opaque id as `user` (seed 002 requestMetadata, see request-identity.ts). Default true. */
  requestMetadata?: boolean;
}

/** From the worker's environment: OPENAI_API_KEY and OPENAI_BASE_URL (an OpenAI-compatible server). */
export function openaiProvider(options: OpenAIProviderOptions = {}): ModelProvider {
  const id = options.id ?? (options.azure ? 'azure' : 'openai');
  let client: OpenAI | undefined;
  return {
    id,
    create(modelId) {
      client ??= makeClient(id, options);
      return new OpenAIChatModel(client, id, modelId, { legacyMaxTokens: options.legacyMaxTokens ?? false, requestMetadata: options.requestMetadata ?? true });
    },
    readiness() {
      const { apiKey, keyVariable } = openaiKey(options);
      return keyReadiness(apiKey, keyVariable, id);
    },
  };
}

function makeClient(id: string, o: OpenAIProviderOptions): OpenAI {
  const common = { maxRetries: 0, timeout: 30 * 60 * 1000 }; // Temporal retries; liveness is watched by the activity
  const { apiKey, keyVariable } = openaiKey(o);
  if (!apiKey) throw missingKey(keyVariable, id);
  if (o.azure) {
    return new AzureOpenAI({
      ...common,
      apiKey,
      endpoint: o.azure.endpoint ?? process.env.AZURE_OPENAI_ENDPOINT,
      apiVersion: o.azure.apiVersion ?? process.env.OPENAI_API_VERSION ?? '2024-10-21',
      deployment: o.azure.deployment,
    });
  }
  const baseURL = o.baseURL ?? process.env.OPENAI_BASE_URL ?? undefined;
  return new OpenAI({ ...common, apiKey, ...(baseURL ? { baseURL } : {}) });
}

/** The key the provider would use, and the variable it comes from (read when asked: the environment may change). */
function openaiKey(o: OpenAIProviderOptions): { apiKey: string | undefined; keyVariable: string } {
  if (o.azure) return { apiKey: o.apiKey ?? process.env.AZURE_OPENAI_API_KEY, keyVariable: 'AZURE_OPENAI_API_KEY' };
  // Local compatible servers (Ollama, vLLM, LM Studio) usually need no key.
  const baseURL = o.baseURL ?? process.env.OPENAI_BASE_URL ?? undefined;
  return { apiKey: o.apiKey ?? (process.env.OPENAI_API_KEY || (baseURL ? 'not-needed' : undefined)), keyVariable: 'OPENAI_API_KEY' };
}

/** Whether a key is there: a provider's `readiness`, so clients can warn before the first model call fails. */
export function keyReadiness(apiKey: string | undefined, variable: string, id: string): Readiness {
  return apiKey ? { ready: true } : { ready: false, problem: missingKeyText(variable, id) };
}

const missingKeyText = (variable: string, id: string) => `${variable} is not set in this worker's environment, so "${id}:" models cannot be called.`;

/** Not retryable: the agent waits, visibly, until the worker is given a key and the call is retried. */
export function missingKey(variable: string, id: string) {
  return toApplicationFailure({ code: ModelError.MissingApiKey, message: missingKeyText(variable, id), retryable: false });
}

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'length',
  content_filter: 'content_filter',
};

export class OpenAIChatModel extends BaseModel {
  constructor(
    private readonly client: OpenAI,
    providerId: string,
    modelId: string,
    private readonly wire: { legacyMaxTokens: boolean; requestMetadata: boolean },
  ) {
    super(providerId, 'openai-chat-completions', modelId);
  }

  request(messages: readonly ContextMessage[], toolSpecs: readonly ToolSpec[], systemPrompt: string | undefined, options: StreamOptions): ModelRequest {
    return { rendering: 'openai-chat-completions', body: this.body(messages, toolSpecs, systemPrompt, options) as unknown as Record<string, unknown> };
  }

  private body(
    messages: readonly ContextMessage[],
    toolSpecs: readonly ToolSpec[],
    systemPrompt: string | undefined,
    options: StreamOptions,
  ): OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming {
    const c = this.config;
    return {
      model: c.modelId,
      messages: toOpenAIMessages(messages, systemPrompt),
      stream: true,
      stream_options: { include_usage: true },
      ...(toolSpecs.length ? { tools: toOpenAITools(toolSpecs) } : {}),
      ...(toolSpecs.length && c.toolChoice ? { tool_choice: toOpenAIToolChoice(c.toolChoice) } : {}),
      ...(c.temperature !== undefined ? { temperature: c.temperature } : {}),
      ...(c.topP !== undefined ? { top_p: c.topP } : {}),
      ...(c.stopSequences?.length ? { stop: c.stopSequences } : {}),
      ...(c.maxTokens !== undefined ? (this.wire.legacyMaxTokens ? { max_tokens: c.maxTokens } : { max_completion_tokens: c.maxTokens }) : {}),
      ...(options.responseFormat ? { response_format: toOpenAIResponseFormat(options.responseFormat) } : {}),
      ...openaiIdentity(options.requestMetadata, this.wire.requestMetadata),
      ...extraRequestFields(c.extra),
    };
  }

  async *stream(
    messages: readonly ContextMessage[],
    toolSpecs: readonly ToolSpec[],
    systemPrompt: string | undefined,
    options: StreamOptions,
  ): AsyncIterable<MessageDelta> {
    const d = new DeltaSequencer({ providerRaw: options.providerRaw });
    const c = this.config;
    const body = this.body(messages, toolSpecs, systemPrompt, options);
    let started = false;
    let finish: FinishReason | undefined;
    const open = new Map<number, string>(); // tool call index -> id
    const ids = new StreamToolCallIds(); // some compatible servers send "" or one id for several calls
    let usage: StreamUsage | undefined;
    try {
      // The request id is a response header: there as soon as the stream opens, before any chunk.
      const { data: stream, request_id } = await this.client.chat.completions.create(body, { signal: options.signal }).withResponse();
      yield d.next({ kind: 'start', modelId: c.modelId, ...(request_id ? { requestId: request_id } : {}) });
      started = true;
      for await (const chunk of stream) {
        d.observe(chunk);
        if (chunk.usage) usage = streamUsage(chunk.usage);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta ?? {};
        // Reasoning text from compatible servers (DeepSeek, vLLM) arrives as reasoning_content.
        const reasoning = (delta as { reasoning_content?: string; reasoning?: string }).reasoning_content ?? (delta as { reasoning?: string }).reasoning;
        if (reasoning) yield d.next({ kind: 'thinking', text: reasoning });
        if (delta.content) yield d.next({ kind: 'text', text: delta.content });
        // A model that declines a typed answer says why in `refusal`: its text, which then fails the schema with the reason in view.
        if (options.responseFormat && delta.refusal) yield d.next({ kind: 'text', text: delta.refusal });
        for (const tc of delta.tool_calls ?? []) {
          if (!open.has(tc.index)) {
            const toolCallId = ids.idFor(tc.id, `call_${chunk.id}_${tc.index}`);
            open.set(tc.index, toolCallId);
            yield d.next({ kind: 'tool_call_start', toolCallId, toolName: tc.function?.name ?? '' });
          }
          if (tc.function?.arguments) yield d.next({ kind: 'tool_call_args', toolCallId: open.get(tc.index)!, argsTextDelta: tc.function.arguments });
        }
        if (choice.finish_reason) finish = FINISH[choice.finish_reason] ?? 'other';
      }
    } catch (err) {
      if (!started) yield d.next({ kind: 'start', modelId: c.modelId });
      yield d.next({ kind: 'error', ...mapProviderError(err) });
      return;
    }
    if (finish === undefined) {
      // The SDK ends iteration quietly when the server closes the stream early: not a complete message.
      yield d.next({ kind: 'error', code: ModelError.StreamIncomplete, message: 'The OpenAI stream ended without a finish_reason.', retryable: true });
      return;
    }
    for (const id of open.values()) yield d.next({ kind: 'tool_call_end', toolCallId: id });
    if (usage) yield d.next({ kind: 'usage', usage });
    yield d.next({ kind: 'done', finishReason: finish });
  }
}

/** Compatible servers may leave counts out (repaired when the output enters history); the total is theirs when given. */
function streamUsage(u: OpenAI.Completions.CompletionUsage): StreamUsage {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  const totalTokens = u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0);
  return { inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens, totalTokens, ...(cached ? { cachedInputTokens: cached } : {}) };
}
