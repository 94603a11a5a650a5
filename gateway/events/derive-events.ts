/**
 * AG-UI events derived from an agent's history and the partial output of its running model call, from a
 * cursor on: the same entries and cursor always give the same events, so a stream resumed from its last
 * SSE id (on any gateway) neither loses nor repeats one. Pure: no I/O, no clock.
 *
 * - model_input: RUN_STARTED `turn-<inputSeq>` (per-agent stream, when no run is open) and the user's
 *   message `in-<seq>` (so a dashboard sees input from every client; an AG-UI run does not echo its own);
 * - model_output: the assistant's text, then TOOL_CALL_START/ARGS/END per call; one without tool calls
 *   ends the turn (RUN_FINISHED in the per-agent stream; an AG-UI run reports it as `answeredSeq`);
 * - tool_results: TOOL_CALL_RESULT per result (a batch that could not run: a failed result per call);
 * - a sub-agent's call (`ask_<profile>`): SUBAGENT_STARTED after its TOOL_CALL_END, SUBAGENT_FINISHED (or
 *   SUBAGENT_ERROR) before its TOOL_CALL_RESULT, the invocation named `sub-<toolCallId>`;
 * - turn_end (interrupted, or the model asked the user): the turn ends without an answer (RUN_FINISHED,
 *   outcome `cancelled` when interrupted);
 * - partial output: the streaming text as TEXT_MESSAGE_CONTENT deltas, continued by the entry when the
 *   same call and attempt produced it, else ended and replaced by the entry's text.
 */
import { type AGUIEvent, EventType } from '@ag-ui/core';
import type { PartialOutput } from '../../activities/call-model';
import {
  type AgentConfig,
  type HistoryEntry,
  type ModelInputEntry,
  type ModelOutputEntry,
  type ToolCallRequest,
  type ToolResultsEntry,
  type TurnEndEntry,
  subAgentProfile,
} from '../../agent/index';
import { type Cursor, type OpenRun, type StreamingMessage } from './cursor';

/** The per-agent stream (turns are runs), or the AG-UI run of one input. */
export type StreamMode = { kind: 'agent'; threadId: string } | { kind: 'run'; threadId: string; inputSeq: number };

/** An event and the cursor just after it (its SSE id). */
export interface Emitted {
  event: AGUIEvent;
  cursor: Cursor;
}

export interface DeriveInput {
  mode: StreamMode;
  cursor: Cursor;
  /** History entries after cursor.seq, in order (any at or before it are ignored). */
  entries: readonly HistoryEntry[];
  /** The calls of the tool batch open at the cursor, for a failed batch whose model output is not in `entries`. */
  batch?: readonly ToolCallRequest[];
  /** The running model call's output so far; pass it only when `entries` reach the agent's last entry. */
  partial?: PartialOutput | null;
  /** The agent's sub-agent profiles (config.subAgents): their `ask_<name>` calls also show as SUBAGENT_* events. */
  subAgents?: AgentConfig['subAgents'];
}

export interface DeriveResult {
  emitted: Emitted[];
  cursor: Cursor;
  /** Run mode: the entry that ended the run's turn, its answer or a turn_end (its events were the last emitted). */
  answeredSeq?: number;
  /** Run mode: the turn ended without an answer. */
  turnEnd?: TurnEndEntry;
  /** Run mode: another input's turn began, so the run's input never started one (it was dropped). */
  otherTurn?: boolean;
}

/** The run id of the per-agent stream's turn for an input. */
export const turnRunId = (inputSeq: number | undefined, seq: number) => (inputSeq === undefined ? `turn-at-${seq}` : `turn-${inputSeq}`);

/** The run id after a run of the same turn ended with RUN_ERROR: `turn-7`, then `turn-7.r2`, `turn-7.r3`… */
export function restartRunId(runId: string): string {
  const m = /^(.*)\.r(\d+)$/.exec(runId);
  return m ? `${m[1]}.r${Number(m[2]) + 1}` : `${runId}.r2`;
}

/** The id of the assistant message of a model call's output: the same whether it was streamed or read. */
export const outputMessageId = (baseSeq: number, callId: string, attempt: number) =>
  callId ? `out-${baseSeq}-${callId}-${attempt}` : `out-${baseSeq}-${attempt}`;

/** The id of a sub-agent invocation in SUBAGENT_* events: the call that made it, so any stream names it alike. */
export const subagentRunId = (toolCallId: string) => `sub-${toolCallId}`;

/** The text of an input as the user sent it. */
export const inputText = (e: ModelInputEntry) => e.sections.map((s) => s.content).join('\n\n');

/** Which call and attempt produced an output (recorded by callModel; absent in older entries). */
export function producedBy(e: ModelOutputEntry): { callId: string; attempt: number } {
  const callId = e.metadata?.call_id;
  const attempt = e.metadata?.attempts;
  return { callId: typeof callId === 'string' ? callId : '', attempt: typeof attempt === 'number' ? attempt : 1 };
}

/** An event with the streaming message and open run as they are once it was sent. */
interface Positioned {
  event: AGUIEvent;
  streaming: StreamingMessage | undefined;
  run: OpenRun | undefined;
}

/**
 * Builds the events of one step, keeping the streaming message and the open run as they change: each
 * change is made before the event that announces it is pushed, so an event's position includes it.
 */
class Step {
  readonly events: Positioned[] = [];
  constructor(
    readonly mode: StreamMode,
    public streaming: StreamingMessage | undefined,
    public run: OpenRun | undefined,
    readonly subAgents?: AgentConfig['subAgents'],
  ) {}

  /** The sub-agent profile a tool name calls, if it calls one. */
  subAgent(toolName: string): { name: string; description: string } | undefined {
    const found = this.subAgents ? subAgentProfile({ subAgents: this.subAgents } as AgentConfig, toolName) : undefined;
    return found && { name: found.name, description: found.profile.description ?? '' };
  }

  push(event: AGUIEvent): void {
    this.events.push({ event, streaming: this.streaming, run: this.run });
  }

  /** The per-agent stream opens a run before anything of a turn; after RUN_ERROR, a new one. */
  ensureRun(seq: number, inputSeq?: number): void {
    if (this.mode.kind !== 'agent') return;
    if (this.run && !this.run.errored) return;
    const runId = this.run ? restartRunId(this.run.runId) : turnRunId(inputSeq, seq);
    this.run = { runId, errored: false };
    this.push({ type: EventType.RUN_STARTED, threadId: this.mode.threadId, runId });
  }

  endStreaming(): void {
    if (!this.streaming) return;
    const m = this.streaming;
    this.streaming = undefined;
    this.push({ type: EventType.TEXT_MESSAGE_END, messageId: outputMessageId(m.baseSeq, m.callId, m.attempt) });
  }

  text(messageId: string, role: 'user' | 'assistant', text: string, name?: string): void {
    this.push({ type: EventType.TEXT_MESSAGE_START, messageId, role, ...(name ? { name } : {}) });
    if (text) this.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: text });
    this.push({ type: EventType.TEXT_MESSAGE_END, messageId });
  }
}

/**
 * The events after `cursor`: of the entries, then of the partial output. Each carries the cursor after
 * it; an entry's events but its last carry the cursor before the entry plus how many of them were sent.
 */
export function deriveEvents(input: DeriveInput): DeriveResult {
  const { mode } = input;
  let cursor = input.cursor;
  const emitted: Emitted[] = [];
  let batch = input.batch;
  const result: Omit<DeriveResult, 'emitted' | 'cursor'> = {};

  for (const entry of input.entries) {
    if (entry.seq <= cursor.seq) continue;
    if (mode.kind === 'run' && !cursor.run) {
      // Before the run's own input: earlier turns are not the run's; a later input's turn means ours was dropped.
      if (entry.kind === 'model_input' && entry.inputSeq !== undefined && entry.inputSeq > mode.inputSeq) {
        result.otherTurn = true;
        break;
      }
      if (!(entry.kind === 'model_input' && entry.inputSeq === mode.inputSeq)) {
        cursor = { seq: entry.seq, part: 0, ...(cursor.streaming ? { streaming: cursor.streaming } : {}) };
        continue;
      }
    } else if (mode.kind === 'run' && entry.kind === 'model_input') {
      result.otherTurn = true; // cannot happen before the answer; never stream another turn into this run
      break;
    }
    const step = new Step(mode, cursor.streaming, cursor.run, input.subAgents);
    entryEvents(step, entry, batch);
    if (entry.kind === 'model_output' && entry.toolCalls.length) batch = entry.toolCalls;
    const before = cursor;
    const skip = entry.seq === before.seq + 1 ? before.part : 0;
    const after: Cursor = { seq: entry.seq, part: 0, ...(step.streaming ? { streaming: step.streaming } : {}), ...(step.run ? { run: step.run } : {}) };
    step.events.forEach(({ event }, i) => {
      if (i < skip) return;
      const last = i === step.events.length - 1;
      emitted.push({ event, cursor: last ? after : { ...before, part: i + 1 } });
    });
    cursor = after;
    if (mode.kind === 'run' && ((entry.kind === 'model_output' && entry.toolCalls.length === 0) || entry.kind === 'turn_end')) {
      result.answeredSeq = entry.seq;
      if (entry.kind === 'turn_end') result.turnEnd = entry;
      break;
    }
  }

  const streamNow = input.partial && !result.answeredSeq && !result.otherTurn && (mode.kind === 'agent' || cursor.run);
  if (streamNow && input.partial) {
    // A partial's events change no entry: each carries the cursor with the message and run as they went.
    const step = new Step(mode, cursor.streaming, cursor.run);
    partialEvents(step, input.partial, cursor.seq);
    for (const p of step.events) emitted.push({ event: p.event, cursor: (cursor = positionedCursor(cursor, p)) });
  }
  return { emitted, cursor, ...result };
}

/** `c` with the streaming message and open run of an event's position. */
function positionedCursor(c: Cursor, p: Pick<Positioned, 'streaming' | 'run'>): Cursor {
  return { seq: c.seq, part: c.part, ...(p.streaming ? { streaming: p.streaming } : {}), ...(p.run ? { run: p.run } : {}) };
}

function entryEvents(step: Step, entry: HistoryEntry, batch: readonly ToolCallRequest[] | undefined): void {
  switch (entry.kind) {
    case 'model_input':
      return inputEvents(step, entry);
    case 'model_output':
      return outputEvents(step, entry);
    case 'tool_results':
      return resultEvents(step, entry, batch);
    case 'turn_end':
      return turnEndEvents(step, entry);
    default:
      return; // system instruction and widget writes show in the state, not as messages
  }
}

function inputEvents(step: Step, entry: ModelInputEntry): void {
  step.endStreaming();
  if (step.mode.kind === 'run') {
    // The run's own input: the client sent this message and has it.
    step.run = { runId: 'run', errored: false };
    return;
  }
  const open = step.run;
  step.run = undefined;
  if (open && !open.errored) step.push({ type: EventType.RUN_FINISHED, threadId: step.mode.threadId, runId: open.runId });
  step.ensureRun(entry.seq, entry.inputSeq);
  step.text(`in-${entry.seq}`, 'user', inputText(entry), entry.sender);
}

function outputEvents(step: Step, entry: ModelOutputEntry): void {
  step.ensureRun(entry.seq);
  const text = entry.contents.join('');
  const by = producedBy(entry);
  const m = step.streaming;
  let messageId: string;
  if (m && m.callId === by.callId && m.attempt === by.attempt && text.length >= m.offset) {
    // The text that streamed from this very call: the rest of it, then its end.
    messageId = outputMessageId(m.baseSeq, m.callId, m.attempt);
    if (text.length > m.offset) step.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: text.slice(m.offset) });
    step.streaming = undefined;
    step.push({ type: EventType.TEXT_MESSAGE_END, messageId });
  } else {
    // Nothing streamed, or another attempt or call (a retry, a fallback model) streamed: that one ends as it was.
    step.endStreaming();
    messageId = outputMessageId(entry.seq - 1, by.callId, by.attempt);
    if (text) step.text(messageId, 'assistant', text);
  }
  for (const call of entry.toolCalls) {
    step.push({ type: EventType.TOOL_CALL_START, toolCallId: call.toolCallId, toolCallName: call.toolName, parentMessageId: messageId });
    if (call.rawArguments) step.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.toolCallId, delta: call.rawArguments });
    step.push({ type: EventType.TOOL_CALL_END, toolCallId: call.toolCallId });
    const sub = step.subAgent(call.toolName);
    if (sub) {
      step.push({
        type: EventType.SUBAGENT_STARTED,
        subagentRunId: subagentRunId(call.toolCallId),
        name: sub.name,
        ...(sub.description ? { description: sub.description } : {}),
        parentToolCallId: call.toolCallId,
        parentMessageId: messageId,
      });
    }
  }
  if (entry.toolCalls.length === 0 && step.mode.kind === 'agent' && step.run) {
    const { runId } = step.run;
    step.run = undefined;
    step.push({ type: EventType.RUN_FINISHED, threadId: step.mode.threadId, runId });
  }
}

function resultEvents(step: Step, entry: ToolResultsEntry, batch: readonly ToolCallRequest[] | undefined): void {
  step.ensureRun(entry.seq);
  let i = 0;
  const result = (toolCallId: string, content: string) =>
    step.push({ type: EventType.TOOL_CALL_RESULT, messageId: `res-${entry.seq}-${i++}`, toolCallId, content, role: 'tool' });
  for (const r of entry.results) {
    // A sub-agent's call: its invocation ends (or fails) before the call's result.
    const call = batch?.find((c) => c.toolCallId === r.toolCallId);
    const childId = typeof r.metadata?.sub_agent === 'string' ? r.metadata.sub_agent : undefined;
    if ((call && step.subAgent(call.toolName)) || childId !== undefined) {
      const subagentRunId_ = subagentRunId(r.toolCallId);
      const metadata = childId !== undefined ? { metadata: { livecontext: { agentId: childId } } } : {};
      step.push(
        r.status === 'Success'
          ? { type: EventType.SUBAGENT_FINISHED, subagentRunId: subagentRunId_, result: r.result, ...metadata }
          : { type: EventType.SUBAGENT_ERROR, subagentRunId: subagentRunId_, message: r.result, code: r.status, ...metadata },
      );
    }
    result(r.toolCallId, r.result);
  }
  if (entry.executeError !== undefined) {
    // The calls without a result are failed with the batch's reason, as the model is shown them.
    const done = new Set(entry.results.map((r) => r.toolCallId));
    for (const call of batch ?? []) if (!done.has(call.toolCallId)) result(call.toolCallId, `Failed: ${entry.executeError}`);
  }
}

/** RUN_FINISHED result of a turn that ended without an answer, and its outcome. */
export function turnEndFinish(entry: TurnEndEntry): { outcome?: { type: 'cancelled' }; result: Record<string, unknown> } {
  const result = {
    ended: entry.reason,
    ...(entry.question !== undefined ? { question: entry.question } : {}),
    ...(entry.by !== undefined ? { by: entry.by } : {}),
  };
  return entry.reason === 'interrupted' ? { outcome: { type: 'cancelled' }, result } : { result };
}

function turnEndEvents(step: Step, entry: TurnEndEntry): void {
  step.endStreaming(); // an interrupted call's text ends where it was
  if (step.mode.kind !== 'agent') return;
  const open = step.run;
  step.run = undefined;
  if (open && !open.errored) step.push({ type: EventType.RUN_FINISHED, threadId: step.mode.threadId, runId: open.runId, ...turnEndFinish(entry) });
}

/** The streaming text's events: the message opens, grows by what the partial adds, or ends for a retry. */
function partialEvents(step: Step, partial: PartialOutput, baseSeq: number): void {
  const total = partial.textChars ?? partial.text.length;
  if (total === 0) return;
  const callId = partial.callId ?? '';
  const m = step.streaming;
  // A retry starts its text over; what streamed from the failed attempt (or another call) ends there.
  if (m && (m.callId !== callId || m.attempt !== partial.attempt)) step.endStreaming();
  if (!step.streaming) {
    step.ensureRun(baseSeq);
    step.streaming = { baseSeq, callId, attempt: partial.attempt, offset: 0 };
    step.push({ type: EventType.TEXT_MESSAGE_START, messageId: outputMessageId(baseSeq, callId, partial.attempt), role: 'assistant' });
  }
  const s = step.streaming;
  // The partial holds the text's tail only: an offset before it waits for the entry, which has it all.
  const tailStart = total - partial.text.length;
  if (s.offset >= tailStart && total > s.offset) {
    step.streaming = { ...s, offset: total };
    step.push({
      type: EventType.TEXT_MESSAGE_CONTENT,
      messageId: outputMessageId(s.baseSeq, s.callId, s.attempt),
      delta: partial.text.slice(s.offset - tailStart),
    });
  }
}

/**
 * The agent is blocked (a failed model call, a stop, a reset): the streaming message ends, and the open
 * run gets RUN_ERROR (in the per-agent stream, once: the cursor records it; an AG-UI run ends with it).
 */
export function blockedEvents(mode: StreamMode, cursor: Cursor, error: { message: string; code: string }): { emitted: Emitted[]; cursor: Cursor } {
  const step = new Step(mode, cursor.streaming, cursor.run);
  step.endStreaming();
  if (mode.kind === 'run' || (step.run && !step.run.errored)) {
    if (step.run) step.run = { ...step.run, errored: true };
    step.push({ type: EventType.RUN_ERROR, message: error.message, code: error.code });
  }
  const emitted = step.events.map((p) => ({ event: p.event, cursor: (cursor = positionedCursor(cursor, p)) }));
  return { emitted, cursor: positionedCursor(cursor, step) };
}

/**
 * Whether a turn is open just after the last of `entries` (a window of history ending there): its input
 * sequence number (undefined for an input without one), or null when none is. `unknown` when the window
 * is too short to say.
 */
export function openTurn(entries: readonly HistoryEntry[]): { inputSeq: number | undefined; seq: number } | null | 'unknown' {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if ((e.kind === 'model_output' && e.toolCalls.length === 0) || e.kind === 'turn_end') return null;
    if (e.kind === 'model_input') return { inputSeq: e.inputSeq, seq: e.seq };
  }
  return entries.length && entries[0].seq === 1 ? null : 'unknown';
}

/** The tool calls of the batch open after the last of `entries` (the window's last model output with calls, not yet answered). */
export function openBatch(entries: readonly HistoryEntry[]): ToolCallRequest[] | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind === 'tool_results' || e.kind === 'model_input' || e.kind === 'turn_end') return undefined;
    if (e.kind === 'model_output') return e.toolCalls.length ? e.toolCalls : undefined;
  }
  return undefined;
}
