/**
 * A span per model call, after the OpenTelemetry GenAI semantic conventions: `chat <model>` (kind
 * CLIENT) with gen_ai.operation.name, gen_ai.provider.name (and the older gen_ai.system),
 * gen_ai.request.model, gen_ai.response.model, token usage, finish reasons and the time to the first
 * token (an event and an attribute). Prompt and answer text only with LIVECONTEXT_TRACE_CONTENT=1.
 * Without a tracer provider (tracing off) every call here is the OpenTelemetry API's no-op.
 */
import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { AssembledMessage, ContextMessage } from '../../agent/index';
import { traceContentWanted } from '../../common/telemetry';

const tracer = () => trace.getTracer('livecontext');
/** Content attributes are cut to this many characters: a span is not a transcript store. */
const MAX_CONTENT_CHARS = 32 * 1024;

/** GenAI provider names for livecontext's provider ids (semantic conventions' well-known values). */
const PROVIDER_NAMES: Record<string, string> = { openai: 'openai', anthropic: 'anthropic', azure: 'azure.ai.openai' };

export interface ModelSpanInfo {
  providerId: string;
  /** The model id sent to the provider. */
  modelId: string;
  agentId: string;
  attempt: number;
}

/** One model call's span: open it before the request, mark the first token, end it once. */
export interface ModelSpan {
  firstToken(): void;
  end(message: AssembledMessage): void;
  fail(error: unknown): void;
}

export function startModelSpan(info: ModelSpanInfo, messages: readonly ContextMessage[], system: string | undefined): ModelSpan {
  const provider = PROVIDER_NAMES[info.providerId] ?? info.providerId;
  const span: Span = tracer().startSpan(`chat ${info.modelId}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': provider,
      'gen_ai.system': provider,
      'gen_ai.request.model': info.modelId,
      'livecontext.agent_id': info.agentId,
      'livecontext.attempt': info.attempt,
    },
  });
  const content = span.isRecording() && traceContentWanted();
  if (content) {
    if (system) span.setAttribute('gen_ai.system_instructions', cut(system));
    span.setAttribute('gen_ai.input.messages', cut(JSON.stringify(messages)));
  }
  const startedAt = performance.now();
  let ended = false;
  let firstAt: number | undefined;
  return {
    firstToken() {
      if (firstAt !== undefined || ended) return;
      firstAt = performance.now();
      const ms = Math.round(firstAt - startedAt);
      span.setAttribute('livecontext.time_to_first_token_ms', ms);
      span.addEvent('gen_ai.first_token', { 'livecontext.time_to_first_token_ms': ms });
    },
    end(message) {
      if (ended) return;
      ended = true;
      span.setAttribute('gen_ai.response.model', info.modelId);
      if (message.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [message.finishReason]);
      if (message.usage) {
        span.setAttribute('gen_ai.usage.input_tokens', message.usage.inputTokens);
        span.setAttribute('gen_ai.usage.output_tokens', message.usage.outputTokens);
        if (message.usage.cachedInputTokens !== undefined) span.setAttribute('gen_ai.usage.cache_read.input_tokens', message.usage.cachedInputTokens);
      }
      if (content) {
        const output = {
          role: 'assistant',
          text: message.contents.join(''),
          toolCalls: message.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: c.rawArguments })),
          finishReason: message.finishReason,
        };
        span.setAttribute('gen_ai.output.messages', cut(JSON.stringify([output])));
      }
      span.end();
    },
    fail(error) {
      if (ended) return;
      ended = true;
      const type = (error as { type?: unknown })?.type;
      span.setAttribute('error.type', typeof type === 'string' ? type : ((error as Error)?.name ?? 'Error'));
      // The message only: provider errors are mapped before they get here, and carry no request headers.
      span.setStatus({ code: SpanStatusCode.ERROR, message: cut(String((error as Error)?.message ?? error), 500) });
      span.end();
    },
  };
}

function cut(text: string, max = MAX_CONTENT_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…[${text.length} chars]` : text;
}
