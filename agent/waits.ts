/**
 * One durable wait: whatever the agent waits on from outside — a person's decision on a tool call, the
 * answer to its question (`ask_user`), the resolution of a call whose outcome is unknown — is a wait with
 * a stable id, answered through any door (CLI, REST, the page, MCP, and later AG-UI, A2A, webhooks) by
 * one update. The first answer wins; every later one is refused with who answered, through which door
 * and when, and changes nothing.
 *
 * Wait ids name what is waited on and where, so they stay the same across runs and doors:
 * `approval-<batch seq>-<toolCallId>`, `outcome-<batch seq>-<toolCallId>`, `question-<turn_end seq>`,
 * `elicit-<batch seq>-<toolCallId>-<n>` (an MCP server's n-th question during the call, elicitations.ts).
 *
 * @example
 * waitIdOf({ kind: 'approval', seq: 12, toolCallId: 'call_1' }); // 'approval-12-call_1'
 * parseWaitId('question-15'); // { kind: 'question', seq: 15 }
 */
import { z } from 'zod';
import { InputRejectedError } from './errors';
import { Door } from './tool-decision';
import { undecodableReason } from './undecodable';

export type WaitKind = 'approval' | 'question' | 'unknown_outcome' | 'elicitation';

/** An open wait, as the agent's state lists it. */
export interface OpenWait {
  waitId: string;
  kind: WaitKind;
  /** When the agent began to wait (ISO-8601). */
  openedAt: string;
  /** approval and unknown_outcome: the call waited on. */
  toolCallId?: string;
  toolName?: string;
  /** The call's arguments as the model wrote them. */
  arguments?: string;
  /** Why the agent waits (the policy or rule that asks; why the outcome is unknown). */
  reason?: string;
  /** question: what the model asked; elicitation: the MCP server's message. */
  question?: string;
  /** elicitation: the JSON schema of the answer's content the server asks for. */
  requestedSchema?: Record<string, unknown>;
  /** elicitation: the MCP server that asks. */
  server?: string;
}

/** Who answered a wait, through which door and when: what a later answer is told. */
export interface WaitAnswerRecord {
  door?: string;
  by?: string;
  at: string;
}

const KIND_PREFIX = { approval: 'approval', unknown_outcome: 'outcome', question: 'question' } as const;

export function waitIdOf(w: { kind: Exclude<WaitKind, 'elicitation'>; seq: number; toolCallId?: string }): string {
  return w.kind === 'question' ? `question-${w.seq}` : `${KIND_PREFIX[w.kind]}-${w.seq}-${w.toolCallId}`;
}

/** The parts of a wait id; throws InputRejectedError('UNKNOWN_WAIT') for one no agent gives. */
export function parseWaitId(waitId: string): { kind: WaitKind; seq: number; toolCallId?: string; n?: number } {
  const e = /^elicit-(\d{1,15})-(.+)-(\d{1,4})$/.exec(waitId);
  if (e) return { kind: 'elicitation', seq: Number(e[1]), toolCallId: e[2], n: Number(e[3]) };
  const m = /^(approval|outcome)-(\d{1,15})-(.+)$/.exec(waitId) ?? /^(question)-(\d{1,15})$/.exec(waitId);
  if (!m) {
    throw new InputRejectedError(
      'UNKNOWN_WAIT',
      `No wait ${JSON.stringify(waitId)}: a wait id is approval-<seq>-<toolCallId>, outcome-<seq>-<toolCallId>, question-<seq> or elicit-<seq>-<toolCallId>-<n>, as the agent's state lists it (waits).`,
    );
  }
  const kind: WaitKind = m[1] === 'approval' ? 'approval' : m[1] === 'outcome' ? 'unknown_outcome' : 'question';
  return { kind, seq: Number(m[2]), ...(m[3] !== undefined ? { toolCallId: m[3] } : {}) };
}

/**
 * The answer to a wait, whatever its kind: `approved` (with `reason`, `remember`) for an approval;
 * `done`, `failed` or `retry` for an unknown outcome; `text` for a question; `action` (with `content`
 * when it is `accept`) for an MCP server's question (elicitation).
 */
export const WaitAnswerBody = z
  .object({
    approved: z.boolean().optional(),
    reason: z.string().max(4096).optional(),
    remember: z.boolean().optional(),
    done: z.string().max(65536).optional(),
    failed: z.string().max(65536).optional(),
    retry: z.literal(true).optional(),
    text: z
      .string()
      .min(1)
      .max(256 * 1024)
      .optional(),
    action: z.enum(['accept', 'decline', 'cancel']).optional(),
    content: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type WaitAnswerBody = z.infer<typeof WaitAnswerBody>;

export const WaitAnswer = z
  .object({
    waitId: z.string().min(1).max(400),
    answer: WaitAnswerBody,
    /** Who answered (recorded). */
    by: z.string().max(200).optional(),
    /** Through which door (`cli`, `rest`, `page`, `mcp`, `a2a`, `ag-ui`, `webhook`…; recorded). Default `client`. */
    door: Door.optional(),
  })
  .strict();
export type WaitAnswer = z.infer<typeof WaitAnswer>;

/** What answering a wait did: its kind, and for a question the input number of the reply. */
export interface WaitAnswered {
  waitId: string;
  kind: WaitKind;
  /** question: the reply's input number (wait for the turn's answer with it). */
  inputSeq?: number;
}

/** Validates an answer's shape and that it fits the wait's kind; throws InputRejectedError. */
export function parseWaitAnswer(raw: unknown): WaitAnswer & { target: ReturnType<typeof parseWaitId> } {
  const undecodable = undecodableReason(raw);
  if (undecodable !== undefined) throw new InputRejectedError('UNDECODABLE_INPUT', `The answer's payload could not be decoded (${undecodable}).`);
  const parsed = WaitAnswer.safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ');
    throw new InputRejectedError('BAD_ANSWER', `An answer is {"waitId": "...", "answer": {...}, "by"?: "...", "door"?: "..."} (${why}).`);
  }
  const target = parseWaitId(parsed.data.waitId);
  const a = parsed.data.answer;
  const given = (Object.keys(a) as Array<keyof WaitAnswerBody>).filter((k) => a[k] !== undefined);
  const allowed: Record<WaitKind, readonly string[]> = {
    approval: ['approved', 'reason', 'remember'],
    unknown_outcome: ['done', 'failed', 'retry'],
    question: ['text'],
    elicitation: ['action', 'content'],
  };
  const ok =
    given.every((k) => allowed[target.kind].includes(k)) &&
    (target.kind === 'approval'
      ? a.approved !== undefined
      : target.kind === 'question'
        ? a.text !== undefined
        : target.kind === 'elicitation'
          ? a.action !== undefined && (a.action === 'accept' || a.content === undefined)
          : [a.done, a.failed, a.retry].filter((v) => v !== undefined).length === 1);
  if (!ok) {
    const shape =
      target.kind === 'approval'
        ? '{"approved": true|false, "reason"?: "...", "remember"?: true}'
        : target.kind === 'question'
          ? '{"text": "the reply"}'
          : target.kind === 'elicitation'
            ? '{"action": "accept", "content": {...}} or {"action": "decline"} or {"action": "cancel"}'
            : '{"done": "what happened"} or {"failed": "why"} or {"retry": true}';
    throw new InputRejectedError('BAD_ANSWER', `The answer to ${parsed.data.waitId} (${target.kind}) is ${shape}.`);
  }
  return { ...parsed.data, target };
}

/** "already answered by rest (ana) at 2026-…": the refusal every later answer gets. */
export function alreadyAnswered(waitId: string, record: WaitAnswerRecord, what?: string): InputRejectedError {
  const who = [record.door, record.by].filter(Boolean).join(' / ') || 'someone';
  return new InputRejectedError(
    'ALREADY_ANSWERED',
    `Wait ${waitId} was already answered by ${who} at ${record.at}${what ? ` (${what})` : ''}; this answer changes nothing.`,
  );
}
