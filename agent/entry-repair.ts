/**
 * What models and tools hand back is repaired, at the moment it enters the agent, into values that hold
 * by the same schemas the carried state is checked with. A reply accepted live can then never stop the
 * agent later — at continue-as-new, export or import. (Seen from OpenAI-compatible servers: tool calls
 * with `"id": ""`, usage without `prompt_tokens`, fractional token counts.)
 */
import { checkMetadata } from './agent-state';
import { JsonValue, type Metadata, type TokenUsage, type ToolCallRequest, type ToolCallResult, ToolExecutionStatus } from './entries';
import type { ModelCallResult } from './step-io';

/** A model output fit for `AgentState.appendModelOutput`; `seq` is the entry number it will get. */
export function repairModelOutput(raw: ModelCallResult, seq: number): ModelCallResult {
  const out = (raw ?? {}) as Partial<ModelCallResult>;
  const repairs: string[] = [];
  const contents = Array.isArray(out.contents) ? out.contents.map(text) : [];
  const ids = new Set<string>();
  const toolCalls = (Array.isArray(out.toolCalls) ? out.toolCalls : []).map((c, i) => {
    const call = repairToolCall(c, `call_${seq}_${i}`, ids);
    if (call.toolCallId !== c?.toolCallId) repairs.push(`tool call ${i} had no usable id`);
    return call;
  });
  const inv = (out.invocation ?? {}) as Partial<ModelCallResult['invocation']>;
  const result: ModelCallResult = {
    contents,
    toolCalls,
    invocation: { providerId: nonEmpty(inv.providerId), specification: nonEmpty(inv.specification), model: nonEmpty(inv.model) },
  };
  if (typeof out.thinking === 'string' && out.thinking) result.thinking = out.thinking;
  if (typeof out.thinkingSignature === 'string' && out.thinkingSignature) result.thinkingSignature = out.thinkingSignature;
  const usage = repairUsage(out.usage);
  if (usage) result.usage = usage;
  const metadata = { ...validMetadata(out.metadata), ...(repairs.length ? { output_repaired: repairs.join('; ').slice(0, 300) } : {}) };
  if (Object.keys(metadata).length) result.metadata = metadata;
  return result;
}

/** A tool result that answers `call` and holds by the ToolCallResult schema, whatever the executor returned. */
export function repairToolResult(raw: ToolCallResult, call: Pick<ToolCallRequest, 'toolCallId' | 'toolName'>): ToolCallResult {
  const r = (raw ?? {}) as Partial<ToolCallResult>;
  const status = ToolExecutionStatus.safeParse(r.status);
  const result: ToolCallResult = {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    status: status.success ? status.data : 'Failed',
    result: typeof r.result === 'string' ? r.result : r.result === undefined ? '' : safeJson(r.result),
  };
  if (!status.success) result.result = `The tool returned an invalid status (${safeJson(r.status)}). ${result.result}`.trim();
  if (typeof r.elapsedMs === 'number' && Number.isFinite(r.elapsedMs) && r.elapsedMs >= 0) result.elapsedMs = r.elapsedMs;
  if (r.metadata !== undefined) {
    const metadata = validMetadata(r.metadata);
    result.metadata = metadata ?? { metadata_dropped: 'the tool returned metadata that is not snake_case JSON within 2 KB' };
  }
  return result;
}

function repairToolCall(raw: ToolCallRequest, fallbackId: string, ids: Set<string>): ToolCallRequest {
  const c = (raw ?? {}) as Partial<ToolCallRequest>;
  let id = typeof c.toolCallId === 'string' && c.toolCallId.trim() ? c.toolCallId : fallbackId;
  while (ids.has(id)) id = `${id}_${ids.size}`;
  ids.add(id);
  const call: ToolCallRequest = {
    toolName: text(c.toolName),
    toolCallId: id,
    rawArguments: typeof c.rawArguments === 'string' ? c.rawArguments : c.rawArguments === undefined ? '' : safeJson(c.rawArguments),
  };
  // Parsed arguments are a convenience (tools parse the raw text again): kept only when they are plain JSON.
  const args = c.arguments;
  if (args && typeof args === 'object' && !Array.isArray(args) && JsonValue.safeParse(args).success) call.arguments = args;
  if (typeof c.parseError === 'string') call.parseError = c.parseError;
  return call;
}

/** Token counts are whole and non-negative; a usage without either count is dropped rather than invented. */
function repairUsage(raw: TokenUsage | undefined): TokenUsage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined);
  const input = count(raw.inputTokens);
  const output = count(raw.outputTokens);
  if (input === undefined && output === undefined) return undefined;
  const usage: TokenUsage = { inputTokens: input ?? 0, outputTokens: output ?? 0 };
  const cached = count(raw.cachedInputTokens);
  if (cached !== undefined) usage.cachedInputTokens = Math.min(cached, usage.inputTokens);
  if (typeof raw.costUsd === 'number' && Number.isFinite(raw.costUsd) && raw.costUsd >= 0) usage.costUsd = raw.costUsd;
  return usage;
}

function validMetadata(raw: unknown): Metadata | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  try {
    checkMetadata(raw as Metadata);
    return JsonValue.safeParse(raw).success ? (raw as Metadata) : undefined;
  } catch {
    return undefined;
  }
}

const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : safeJson(v));
const nonEmpty = (v: unknown): string => (typeof v === 'string' && v.length > 0 ? v : 'unknown');

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
