/**
 * A scripted in-process model for tests and examples. Step `n` answers the call that sees `n` model
 * outputs in its context, so the script survives worker restarts and activity retries. It records
 * every request it is sent and fails loudly when its script runs out.
 */
import { BaseModel } from './base-model';
import type { ContextMessage, MessageDelta, Model, ToolSpec } from '../../agent/index';
import { DeltaSequencer, unwrap } from '../../agent/index';
import type { ModelProvider } from './model-router';

export interface ScriptedToolCall {
  name: string;
  /** Arguments as an object, or a raw string (to script arguments that do not parse). */
  args: unknown;
}

export interface ScriptStep {
  text?: string;
  thinking?: string;
  toolCalls?: ScriptedToolCall[];
  /** Runs before the step streams: lets a test hold the call open (to kill the worker mid-call). */
  before?: (request: ScriptedRequest) => Promise<void> | void;
  usage?: { inputTokens: number; outputTokens: number };
}

export interface ScriptedRequest {
  modelId: string;
  step: number;
  messages: readonly ContextMessage[];
  toolSpecs: readonly ToolSpec[];
  systemPrompt: string | undefined;
}

export type Script = readonly ScriptStep[] | ((request: ScriptedRequest) => ScriptStep);

export class ScriptedModelProvider implements ModelProvider {
  readonly id: string;
  /** Every request any scripted model was sent, in order. */
  readonly requests: ScriptedRequest[] = [];

  constructor(
    private readonly scripts: Record<string, Script>,
    id = 'scripted',
  ) {
    this.id = id;
  }

  create(modelId: string): Model {
    const script = this.scripts[modelId];
    if (!script) throw new Error(`No script named "${modelId}" (have: ${Object.keys(this.scripts).join(', ')}).`);
    return new ScriptedModel(this.id, modelId, script, this.requests);
  }
}

class ScriptedModel extends BaseModel {
  constructor(
    providerId: string,
    modelId: string,
    private readonly script: Script,
    private readonly log: ScriptedRequest[],
  ) {
    super(providerId, 'scripted', modelId);
  }

  async *stream(messages: readonly ContextMessage[], toolSpecs: readonly ToolSpec[], systemPrompt: string | undefined): AsyncIterable<MessageDelta> {
    const step = messages.filter((m) => unwrap(m).kind === 'model_output').length;
    const request: ScriptedRequest = { modelId: this.config.modelId, step, messages, toolSpecs, systemPrompt };
    this.log.push(request);
    const entry = typeof this.script === 'function' ? this.script(request) : this.script[step];
    if (!entry) {
      throw new Error(`Scripted model "${this.config.modelId}" has no step ${step} (script has ${(this.script as ScriptStep[]).length}).`);
    }
    await entry.before?.(request);
    const d = new DeltaSequencer();
    yield d.next({ kind: 'start', modelId: this.config.modelId });
    if (entry.thinking) yield d.next({ kind: 'thinking', text: entry.thinking });
    if (entry.text) for (const piece of entry.text.match(/\S+\s*|\s+/g) ?? []) yield d.next({ kind: 'text', text: piece });
    for (const [i, call] of (entry.toolCalls ?? []).entries()) {
      const toolCallId = `call_${step}_${i}`;
      const raw = typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {});
      yield d.next({ kind: 'tool_call_start', toolCallId, toolName: call.name });
      // Two fragments, as real providers split arguments.
      const half = Math.floor(raw.length / 2);
      yield d.next({ kind: 'tool_call_args', toolCallId, argsTextDelta: raw.slice(0, half) });
      yield d.next({ kind: 'tool_call_args', toolCallId, argsTextDelta: raw.slice(half) });
      yield d.next({ kind: 'tool_call_end', toolCallId });
    }
    if (entry.usage) yield d.next({ kind: 'usage', usage: { ...entry.usage, totalTokens: entry.usage.inputTokens + entry.usage.outputTokens } });
    yield d.next({ kind: 'done', finishReason: entry.toolCalls?.length ? 'tool_calls' : 'stop' });
  }
}
