/**
 * MessageAssembler (seed 002): folds a MessageDelta stream into one model message and enforces the
 * stream invariants. States: idle -> started -> done | error. One assembler per stream: it has no
 * `reset` (a retried call streams into a new one). Provider events (`providerRaw`) are not assembled.
 */
import type { ToolCallRequest } from './entries';
import { StreamProtocolError } from './errors';
import type { FinishReason, MessageDelta, StreamUsage } from './message-delta';

export type AssemblerStatus = 'idle' | 'started' | 'done' | 'error';

export interface AssembledMessage {
  contents: string[];
  thinking?: string;
  thinkingSignature?: string;
  toolCalls: ToolCallRequest[];
  usage?: StreamUsage;
  finishReason?: FinishReason;
}

interface ToolCallBuffer {
  toolCallId: string;
  toolName: string;
  args: string;
  ended: boolean;
}

export class MessageAssembler {
  private statusValue: AssemblerStatus = 'idle';
  private lastSeq = 0;
  private text = '';
  private thinking = '';
  private thinkingSignature: string | undefined;
  private toolCalls: ToolCallBuffer[] = [];
  private usage: StreamUsage | undefined;
  private finishReason: FinishReason | undefined;
  private errorValue: { code: string; message: string; retryable: boolean; retryAfterMs?: number } | undefined;

  get status(): AssemblerStatus {
    return this.statusValue;
  }

  consume(delta: MessageDelta): void {
    if (this.statusValue === 'done' || this.statusValue === 'error') {
      throw new StreamProtocolError('DELTA_AFTER_END', `Delta "${delta.kind}" after the stream ended.`);
    }
    if (this.statusValue === 'idle' && delta.kind !== 'start') {
      throw new StreamProtocolError('START_NOT_FIRST', `The first delta must be "start", got "${delta.kind}".`);
    }
    if (delta.seq <= this.lastSeq) {
      throw new StreamProtocolError('SEQ_NOT_INCREASING', `Delta seq ${delta.seq} after ${this.lastSeq}.`);
    }
    this.lastSeq = delta.seq;
    switch (delta.kind) {
      case 'start':
        if (this.statusValue !== 'idle') throw new StreamProtocolError('DUPLICATE_START', 'A second "start" delta.');
        this.statusValue = 'started';
        return;
      case 'text':
        this.text += delta.text;
        return;
      case 'thinking':
        this.thinking += delta.text;
        if (delta.signature) this.thinkingSignature = delta.signature;
        return;
      case 'tool_call_start':
        if (this.toolCalls.some((c) => c.toolCallId === delta.toolCallId)) {
          throw new StreamProtocolError('DUPLICATE_TOOL_CALL', `Tool call ${delta.toolCallId} started twice.`);
        }
        this.toolCalls.push({ toolCallId: delta.toolCallId, toolName: delta.toolName, args: '', ended: false });
        return;
      case 'tool_call_args':
        this.openCall(delta.toolCallId).args += delta.argsTextDelta;
        return;
      case 'tool_call_end':
        this.openCall(delta.toolCallId).ended = true;
        return;
      case 'usage':
        this.usage = delta.usage;
        return;
      case 'done': {
        const open = this.toolCalls.find((c) => !c.ended);
        if (open) throw new StreamProtocolError('TOOL_CALL_NOT_ENDED', `Tool call ${open.toolCallId} never ended.`);
        this.finishReason = delta.finishReason;
        this.statusValue = 'done';
        return;
      }
      case 'error':
        this.errorValue = { code: delta.code, message: delta.message, retryable: delta.retryable };
        if (delta.retryAfterMs !== undefined) this.errorValue.retryAfterMs = delta.retryAfterMs;
        this.statusValue = 'error';
        return;
    }
  }

  /** The message so far, for live display; allowed before `done`. */
  snapshot(): AssembledMessage {
    return this.build();
  }

  /** The final message; only after `done`. */
  buildFinalMessage(): AssembledMessage {
    if (this.statusValue !== 'done') {
      throw new StreamProtocolError(
        this.statusValue === 'error' ? 'STREAM_ERROR' : 'STREAM_NOT_DONE',
        this.statusValue === 'error' ? `The stream ended with an error: ${this.errorValue?.message}` : 'The stream ended without a "done" delta.',
      );
    }
    return this.build();
  }

  getError() {
    return this.errorValue ?? null;
  }

  private openCall(id: string): ToolCallBuffer {
    const call = this.toolCalls.find((c) => c.toolCallId === id);
    if (!call) throw new StreamProtocolError('UNKNOWN_TOOL_CALL', `Arguments for tool call ${id} before its start.`);
    if (call.ended) throw new StreamProtocolError('TOOL_CALL_ENDED', `Tool call ${id} already ended.`);
    return call;
  }

  private build(): AssembledMessage {
    const message: AssembledMessage = {
      contents: this.text ? [this.text] : [],
      toolCalls: this.toolCalls.map((c) => parseToolCall(c.toolCallId, c.toolName, c.args)),
    };
    if (this.thinking) message.thinking = this.thinking;
    if (this.thinkingSignature) message.thinkingSignature = this.thinkingSignature;
    if (this.usage) message.usage = this.usage;
    if (this.finishReason) message.finishReason = this.finishReason;
    return message;
  }
}

/** Seed 000: keep the raw text always; parsed arguments on success, a ParseError otherwise. */
export function parseToolCall(toolCallId: string, toolName: string, rawArguments: string): ToolCallRequest {
  const call: ToolCallRequest = { toolCallId, toolName, rawArguments };
  const text = rawArguments.trim() === '' ? '{}' : rawArguments;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      call.parseError = 'Tool arguments must be a JSON object.';
    } else {
      call.arguments = parsed as ToolCallRequest['arguments'];
    }
  } catch (err) {
    call.parseError = `Tool arguments are not valid JSON: ${(err as Error).message}`;
  }
  return call;
}
