/**
 * A span per tool run, after the OpenTelemetry GenAI semantic conventions: `execute_tool <name>` with
 * gen_ai.operation.name, gen_ai.tool.name, gen_ai.tool.call.id and the result's status. Arguments and
 * results (already cut of known secrets) only with LIVECONTEXT_TRACE_CONTENT=1. A no-op when tracing is off.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ApprovalRequired, OutcomeUnknown, ToolCallResult } from '../../agent/index';
import { traceContentWanted } from '../../common/telemetry';
import { redactSecrets, secretsIn } from '../tools/redact-secrets';

const MAX_CONTENT_CHARS = 32 * 1024;

/** Runs `run` inside the tool's span, which ends with the status of what it returns or throws. */
export async function inToolSpan<T extends ToolCallResult | ApprovalRequired | OutcomeUnknown>(
  call: { toolName: string; toolCallId: string; rawArguments?: string },
  agentId: string,
  run: () => Promise<T>,
): Promise<T> {
  return trace.getTracer('livecontext').startActiveSpan(
    `execute_tool ${call.toolName}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.toolName,
        'gen_ai.tool.call.id': call.toolCallId,
        'livecontext.agent_id': agentId,
      },
    },
    async (span) => {
      const content = span.isRecording() && traceContentWanted();
      try {
        const result = await run();
        if ('approvalRequired' in result) {
          span.setAttribute('livecontext.tool.status', 'ApprovalRequired');
        } else if ('outcomeUnknown' in result) {
          span.setAttribute('livecontext.tool.status', 'OutcomeUnknown');
        } else {
          span.setAttribute('livecontext.tool.status', result.status);
          if (result.status !== 'Success') span.setStatus({ code: SpanStatusCode.ERROR, message: result.status });
          if (content) span.setAttribute('gen_ai.tool.call.result', cut(result.result));
        }
        // Known secrets are cut from the arguments as they are from results.
        if (content && call.rawArguments !== undefined) span.setAttribute('gen_ai.tool.call.arguments', cut(redactSecrets(call.rawArguments, secretsIn())));
        return result;
      } catch (err) {
        span.setAttribute('error.type', (err as Error)?.name ?? 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: String((err as Error)?.message ?? err).slice(0, 500) });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

function cut(text: string): string {
  return text.length > MAX_CONTENT_CHARS ? `${text.slice(0, MAX_CONTENT_CHARS)}…[${text.length} chars]` : text;
}
