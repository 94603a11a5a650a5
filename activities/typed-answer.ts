/**
 * The callModel activity's part in typed answers (see agent/response-schema.ts): an answer without
 * tool calls, in a turn whose input gave a response schema, is parsed leniently and checked; one that
 * does not match is re-asked once within the same call (the answer and what is wrong with it appended
 * to the context, for this request only); a second miss is ModelError.InvalidStructuredOutput, not
 * retried, so the agent blocks on it visibly. What is recorded is the value as compact JSON.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  type AssembledMessage,
  type ContextMessage,
  type Metadata,
  type ModelInvocationDescriptor,
  type ResponseSchema,
  type StreamUsage,
  USER_SECTION_TITLE,
} from '../agent/index';
import { ModelError } from './models/provider-errors';
import { type CheckedAnswer, checkStructuredAnswer } from './typed-answer-check';

/** Streams one model call over `messages` and returns its complete message (throws as callModel does). */
export type StreamMessage = (messages: readonly ContextMessage[]) => Promise<AssembledMessage>;

export interface TypedAnswer {
  message: AssembledMessage;
  /** What the answer's entry records about the check (metadata `typed_answer`), when there is anything to say. */
  metadata?: Metadata;
}

/** Repairs and their text are clipped so the entry's metadata stays within its 2 KB. */
const MAX_REPAIRS = 5;
const CLIP = 120;

/**
 * `message` checked against `schema` (messages with tool calls pass as they are: the turn goes on), and
 * re-asked once through `stream` when it does not match. Returns the message to record.
 */
export async function typedAnswer(
  message: AssembledMessage,
  schema: ResponseSchema,
  call: {
    messages: readonly ContextMessage[];
    uptoSeq: number;
    invocation: ModelInvocationDescriptor;
    model: string;
    stream: StreamMessage;
    log?: (text: string) => void;
  },
): Promise<TypedAnswer> {
  if (message.toolCalls.length) return { message };
  const first = await checkAlive(message.contents.join(''), schema);
  if (!first.ok && 'stopped' in first) throw stoppedCheck(call.model, first.stopped);
  if (first.ok) return { message: { ...message, contents: [first.json] }, ...repairsMetadata(first.repairs, false) };

  call.log?.(`The typed answer of ${call.model} does not match its schema (${first.issues}); asking again once.`);
  const again = await call.stream(reaskMessages(call.messages, message, first.issues, call.uptoSeq, call.invocation));
  const usage = addUsage(message.usage, again.usage);
  const merged = { ...again, ...(usage ? { usage } : {}) };
  if (again.toolCalls.length) return { message: merged, metadata: { typed_answer: { reasked: true } } }; // it went back to work
  const second = await checkAlive(again.contents.join(''), schema);
  if (!second.ok && 'stopped' in second) throw stoppedCheck(call.model, second.stopped);
  if (!second.ok) {
    throw ApplicationFailure.create({
      type: ModelError.InvalidStructuredOutput,
      nonRetryable: true,
      message: `The answer of ${call.model} does not match the input's response schema, also when asked again: ${second.issues}. Retry the turn (\`retry\`), switch to a model that follows the schema, or loosen the schema.`,
    });
  }
  return { message: { ...merged, contents: [second.json] }, ...repairsMetadata(second.repairs, true) };
}

/** The check, with the model call's heartbeats going on while it runs (a check with patterns may take up to its time limit). */
async function checkAlive(text: string, schema: ResponseSchema): Promise<CheckedAnswer> {
  const ctx = Context.current();
  const alive = setInterval(() => ctx.info.isLocal || ctx.heartbeat(), 1000); // a local activity cannot heartbeat
  try {
    return await checkStructuredAnswer(text, schema);
  } finally {
    clearInterval(alive);
  }
}

/** A check that could not finish is no verdict on the answer: the agent blocks on it, saying so (not re-asked). */
function stoppedCheck(model: string, why: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: ModelError.InvalidStructuredOutput,
    nonRetryable: true,
    message: `The answer of ${model} could not be checked against the input's response schema: ${why}. Loosen or remove the pattern in the schema, then retry the turn (\`retry\`).`,
  });
}

/** The context of the re-ask: the answer as given, then a user message saying what is wrong with it. */
export function reaskMessages(
  messages: readonly ContextMessage[],
  answer: AssembledMessage,
  issues: string,
  uptoSeq: number,
  invocation: ModelInvocationDescriptor,
): ContextMessage[] {
  const timestamp = new Date(0).toISOString(); // never recorded: these two exist for this request only
  return [
    ...messages,
    { kind: 'model_output', seq: uptoSeq + 1, timestamp, contents: answer.contents, toolCalls: [], invocation },
    {
      kind: 'model_input',
      seq: uptoSeq + 2,
      timestamp,
      sections: [
        {
          title: USER_SECTION_TITLE,
          content: `Your answer does not match the required JSON schema: ${issues}. Answer again with only JSON that matches the schema exactly.`,
        },
      ],
    },
  ];
}

function repairsMetadata(repairs: readonly string[], reasked: boolean): { metadata?: Metadata } {
  if (!repairs.length && !reasked) return {};
  const clipped = repairs.slice(0, MAX_REPAIRS).map((r) => r.slice(0, CLIP));
  return { metadata: { typed_answer: { ...(reasked ? { reasked: true } : {}), ...(clipped.length ? { repairs: clipped } : {}) } } };
}

/** Both calls' tokens: the re-ask is part of this model call, and budgets count it. */
function addUsage(a: StreamUsage | undefined, b: StreamUsage | undefined): StreamUsage | undefined {
  if (!a || !b) return b ?? a;
  const cached = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(cached ? { cachedInputTokens: cached } : {}),
  };
}
