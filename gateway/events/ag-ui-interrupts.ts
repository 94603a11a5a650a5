/**
 * AG-UI 1.0 interrupts for the agent's waits (agent/waits.ts): a run that reaches an approval, an
 * unknown outcome or an `ask_user` question ends with RUN_FINISHED `outcome: {type: "interrupt"}`, one
 * Interrupt per open wait, its id the wait id; the next run's `resume` entries answer them through the
 * agent's one wait (door `ag-ui`), so the first answer through any door wins. Pure: no I/O.
 *
 * What a resume entry's `payload` is, per kind (the Interrupt's `responseSchema` says it too):
 * - approval (reason `tool_call`): `{ "approved": true|false, "reason"?: "…", "remember"?: true }`;
 *   `status: "cancelled"` denies the call (reason "cancelled through AG-UI"), so the tool does not run;
 * - question (reason `input_required`): `{ "text": "the reply" }` or the reply as a plain string; the reply is
 *   the agent's next input; `cancelled` sends nothing (the question stays open for the next input);
 * - unknown outcome (reason `livecontext:unknown_outcome`): `{ "done": "…" }`, `{ "failed": "…" }` or
 *   `{ "retry": true }`; `cancelled` leaves it for a person (CLI, REST, the page), and the run ends with it again.
 * `metadata.by` (a string), when given, is recorded as who answered.
 *
 * @example
 * interruptOf({ waitId: 'approval-7-call_1', kind: 'approval', toolCallId: 'call_1', toolName: 'deploy', … });
 * // { id: 'approval-7-call_1', reason: 'tool_call', toolCallId: 'call_1', message: 'Approve deploy(…)? …', … }
 */
import type { Interrupt, ResumeEntry } from '@ag-ui/core';
import { type OpenWait, type WaitAnswerBody, type WaitKind, parseWaitId } from '../../agent/index';

/** The door AG-UI answers go through, as the agent's history records it. */
export const AG_UI_DOOR = 'ag-ui';
/** The reason a denial by a cancelled resume entry gives. */
export const CANCELLED_REASON = 'cancelled through AG-UI';

const APPROVAL_SCHEMA = {
  type: 'object',
  properties: {
    approved: { type: 'boolean' },
    reason: { type: 'string' },
    remember: { type: 'boolean', description: "allow this tool from now on (don't ask again)" },
  },
  required: ['approved'],
  additionalProperties: false,
};
const QUESTION_SCHEMA = { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'], additionalProperties: false };
const OUTCOME_SCHEMA = {
  type: 'object',
  oneOf: [
    { properties: { done: { type: 'string' } }, required: ['done'], additionalProperties: false },
    { properties: { failed: { type: 'string' } }, required: ['failed'], additionalProperties: false },
    { properties: { retry: { const: true } }, required: ['retry'], additionalProperties: false },
  ],
};

/** The Interrupt a wait is announced as. */
export function interruptOf(w: OpenWait): Interrupt {
  const call = w.toolName !== undefined ? `${w.toolName}(${w.arguments ?? ''})` : '';
  const details = { kind: w.kind, openedAt: w.openedAt, ...(w.toolName !== undefined ? { toolName: w.toolName, arguments: w.arguments ?? '' } : {}) };
  switch (w.kind) {
    case 'approval':
      return {
        id: w.waitId,
        reason: 'tool_call',
        message: `Approve ${call}?${w.reason ? ` ${w.reason}.` : ''}`,
        toolCallId: w.toolCallId,
        responseSchema: APPROVAL_SCHEMA,
        metadata: { livecontext: { ...details, ...(w.reason ? { why: w.reason } : {}) } },
      };
    case 'unknown_outcome':
      return {
        id: w.waitId,
        reason: 'livecontext:unknown_outcome',
        message: `Did ${call} happen? Its outcome is unknown${w.reason ? ` (${w.reason})` : ''}: say it was done, it failed, or to run it again.`,
        toolCallId: w.toolCallId,
        responseSchema: OUTCOME_SCHEMA,
        metadata: { livecontext: { ...details, ...(w.reason ? { why: w.reason } : {}) } },
      };
    case 'question':
      return { id: w.waitId, reason: 'input_required', message: w.question ?? '', responseSchema: QUESTION_SCHEMA, metadata: { livecontext: details } };
    case 'elicitation':
      return {
        id: w.waitId,
        reason: 'livecontext:elicitation',
        message: `${w.server ? `The MCP server "${w.server}" asks` : 'An MCP server asks'}${call ? ` during ${call}` : ''}: ${w.question ?? ''}`,
        toolCallId: w.toolCallId,
        responseSchema: elicitationSchema(w.requestedSchema),
        metadata: { livecontext: { ...details, ...(w.server ? { server: w.server } : {}) } },
      };
  }
}

/** An MCP server's question is answered with an action, and with content in the server's schema when accepted. */
function elicitationSchema(requested: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    type: 'object',
    oneOf: [
      { properties: { action: { const: 'accept' }, content: requested ?? { type: 'object' } }, required: ['action', 'content'], additionalProperties: false },
      { properties: { action: { enum: ['decline', 'cancel'] } }, required: ['action'], additionalProperties: false },
    ],
  };
}

/** A resume entry that cannot be answered as it is: the run ends with RUN_ERROR naming it. */
export class ResumeRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** What one resume entry does: answer its wait, or leave it (a cancelled question or unknown outcome). */
export interface ResumeAction {
  waitId: string;
  kind: WaitKind;
  /** The wait's seq: the batch of an approval or unknown outcome, the turn_end of a question. */
  seq: number;
  answer?: WaitAnswerBody;
  /** Who answered (the entry's `metadata.by`). */
  by?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The action of each resume entry, in order; throws ResumeRefusal for one no wait of ours can take. */
export function resumeActions(entries: readonly ResumeEntry[]): ResumeAction[] {
  const seen = new Set<string>();
  return entries.map((e) => {
    if (seen.has(e.interruptId)) throw new ResumeRefusal('BAD_RESUME', `Interrupt ${e.interruptId} is answered twice in one resume.`);
    seen.add(e.interruptId);
    let target: ReturnType<typeof parseWaitId>;
    try {
      target = parseWaitId(e.interruptId);
    } catch (err) {
      throw new ResumeRefusal('UNKNOWN_WAIT', (err as Error).message);
    }
    const by = typeof e.metadata?.by === 'string' && e.metadata.by.trim() ? e.metadata.by.trim().slice(0, 200) : undefined;
    const base = { waitId: e.interruptId, kind: target.kind, seq: target.seq, ...(by !== undefined ? { by } : {}) };
    if (e.status === 'cancelled') {
      if (target.kind === 'approval') return { ...base, answer: { approved: false, reason: CANCELLED_REASON } };
      return target.kind === 'elicitation' ? { ...base, answer: { action: 'cancel' } } : base;
    }
    return { ...base, answer: answerOf(target.kind, e) };
  });
}

/** A resolved entry's payload as the wait's answer (its shape is checked by the agent, which says what it should be). */
function answerOf(kind: WaitKind, e: ResumeEntry): WaitAnswerBody {
  const p: unknown = e.payload;
  if (kind === 'question' && typeof p === 'string') return { text: p };
  if (!isRecord(p)) {
    const shape =
      kind === 'approval'
        ? '{"approved": true|false, "reason"?: "…"}'
        : kind === 'question'
          ? '{"text": "the reply"}'
          : kind === 'elicitation'
            ? '{"action": "accept", "content": {…}} or {"action": "decline"|"cancel"}'
            : '{"done"|"failed": "…"} or {"retry": true}';
    throw new ResumeRefusal('BAD_ANSWER', `The resume of ${e.interruptId} (${kind}) needs a payload ${shape}.`);
  }
  return p as WaitAnswerBody;
}
