/**
 * Input from people and services, and the inbox that seed 004's WaitingInput state pulls from.
 * Inputs are numbered when accepted (`inputSeq`), so a sender can later ask for the answer to its input.
 */
import { z } from 'zod';
import { Attachment, IMPOSSIBLE_IMAGES_CHANGE, parseAttachments } from './attachments';
import { ContentSection, WaitReply } from './entries';
import { utf8Length } from './agent-state';
import { InputRejectedError } from './errors';
import { ResponseSchema } from './response-schema';
import { undecodableReason } from './undecodable';

/** Largest accepted input, in UTF-8 bytes of its text. Far below Temporal's 2 MB payload limit. */
export const INPUT_MAX_BYTES = 256 * 1024;

/**
 * What a sender sends: plain `text`, or titled `sections` (for services that hand over structured
 * material), and optionally `attachments` (images; see ./attachments for their limits). `sender` names
 * who it came from.
 */
export const AgentInput = z
  .object({
    text: z.string().optional(),
    /** At most 100: more would be a way to grow the agent without growing the counted text. */
    sections: z.array(ContentSection).max(100).optional(),
    sender: z.string().max(200).optional(),
    attachments: z.array(Attachment).optional(),
    /**
     * The sender's id for this input (a webhook's delivery id, an event id): an input whose key the agent
     * already accepted is not taken again — the first one's `inputSeq` is returned — across worker
     * restarts and continue-as-new. The agent remembers its last IDEMPOTENCY_KEYS_KEPT keys.
     */
    idempotencyKey: z.string().min(1).max(200).optional(),
    /**
     * A typed answer: the final answer of this input's turn must be JSON matching this JSON Schema
     * (through the provider's structured output; repaired leniently, re-asked once, else the agent
     * blocks on ModelError.InvalidStructuredOutput). At most RESPONSE_SCHEMA_MAX_BYTES.
     */
    responseSchema: ResponseSchema.optional(),
  })
  .strict()
  .refine((v) => v.text !== undefined || v.sections !== undefined, { message: 'input needs "text" or "sections"' });
export type AgentInput = z.infer<typeof AgentInput>;

/** An accepted input waiting in the inbox. */
export const InboxItem = z.object({
  inputSeq: z.number().int().positive(),
  sections: z.array(ContentSection),
  sender: z.string().optional(),
  attachments: z.array(Attachment).optional(),
  responseSchema: ResponseSchema.optional(),
  receivedAt: z.string(),
  /** The question (wait) this input answers, when it came as an answer (see agent/waits.ts). */
  answers: WaitReply.optional(),
});
export type InboxItem = z.infer<typeof InboxItem>;

/** The default section title for plain text input. */
export const USER_SECTION_TITLE = 'Input';

/**
 * Validates raw input (from a signal or an update) and turns it into content sections.
 * Blank input is NOT an error here: seed 004 drops it when it is pulled, so it keeps its place in order.
 */
/** An input as parseInput returns it. */
export interface ParsedInput {
  sections: ContentSection[];
  sender?: string;
  attachments?: Attachment[];
  idempotencyKey?: string;
  responseSchema?: ResponseSchema;
}

export function parseInput(raw: unknown, since?: (change: string) => boolean): ParsedInput {
  const undecodable = undecodableReason(raw);
  if (undecodable !== undefined) {
    throw new InputRejectedError(
      'UNDECODABLE_INPUT',
      `The input's payload could not be decoded (${undecodable}). Send JSON {"text": "..."} with the same data converter as the workers.`,
    );
  }
  // Attachments first, for errors that name the limit or the type rather than a schema path.
  const rawAttachments = typeof raw === 'object' && raw !== null ? (raw as { attachments?: unknown }).attachments : undefined;
  const attachments = rawAttachments === undefined ? undefined : parseAttachments(rawAttachments, since && (() => since(IMPOSSIBLE_IMAGES_CHANGE)));
  const parsed = AgentInput.safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
    throw new InputRejectedError('MALFORMED_INPUT', `Malformed input (${why}). Send {"text": "..."}.`);
  }
  const { text, sections, sender, idempotencyKey, responseSchema } = parsed.data;
  const all = [...(text !== undefined ? [{ title: USER_SECTION_TITLE, content: text }] : []), ...(sections ?? [])];
  // What the sender sent: the text, and the titles and contents of its own sections (not our default title).
  const bytes = utf8Length(text ?? '') + (sections ?? []).reduce((n, s) => n + utf8Length(s.title) + utf8Length(s.content), 0);
  if (bytes > INPUT_MAX_BYTES) {
    throw new InputRejectedError(
      'INPUT_TOO_LARGE',
      `Input is ${bytes} bytes; the limit is ${INPUT_MAX_BYTES} bytes. Put large material in a workspace file and refer to it.`,
    );
  }
  // A blank input is dropped when pulled (see isBlank): its images would be lost without a word.
  if (attachments?.length && isBlank(all)) {
    throw new InputRejectedError('BLANK_WITH_ATTACHMENTS', 'An input with attachments needs text too: say what to do with them.');
  }
  return {
    sections: all,
    ...(sender !== undefined ? { sender } : {}),
    ...(attachments?.length ? { attachments } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    ...(responseSchema !== undefined ? { responseSchema } : {}),
  };
}

/**
 * Idempotency keys livecontext makes for inputs of its own: an AG-UI run's (`ag-ui:<runId>`) and a
 * schedule's delivery (`schedule:<id>`). Plain input (REST, MCP, CLI) may not use them: a key that
 * happened to match would make the agent take that input for the run or the delivery, or the other way.
 */
export const RESERVED_KEY_PREFIXES = ['ag-ui:', 'schedule:'] as const;

/** Throws InputRejectedError `RESERVED_IDEMPOTENCY_KEY` when a plain input's key starts with a reserved prefix. */
export function checkPlainInputKey(key: string | undefined): void {
  const prefix = key === undefined ? undefined : RESERVED_KEY_PREFIXES.find((p) => key.toLowerCase().startsWith(p));
  if (prefix) {
    throw new InputRejectedError(
      'RESERVED_IDEMPOTENCY_KEY',
      `Idempotency keys that start with ${RESERVED_KEY_PREFIXES.map((p) => `"${p}"`).join(' or ')} are livecontext's own (AG-UI runs, schedules): choose another key.`,
    );
  }
}

/** How many idempotency keys an agent remembers (the newest); an older key's redelivery is a new input. */
export const IDEMPOTENCY_KEYS_KEPT = 1000;

export function isBlank(sections: readonly ContentSection[]): boolean {
  return sections.every((s) => s.content.trim() === '');
}
