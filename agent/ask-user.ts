/**
 * `ask_user`: a built-in tool that ends the turn with a question for the person (seed 004: after tool
 * results the agent may decide to wait for new input). It runs inside the workflow; the question
 * becomes the turn's outcome, and the person's reply is the next input.
 */
import { z } from 'zod';

export const AskUserArgs = z
  .object({
    question: z.string().min(1).max(4_000).describe('The question for the user; their reply comes as the next input'),
  })
  .strict();

export const ASK_USER_TOOL = {
  name: 'ask_user',
  description: 'Ask the user a question and end this turn; call it alone, when you cannot go on without their answer.',
  parameters: AskUserArgs,
} as const;

/** The workflow patch (StepDeps.since) behind ask_user: a history recorded before it ran the name as an ordinary tool. */
export const ASK_USER_CHANGE = 'ask-user-tool';

/**
 * The workflow patch behind asking every question of a reply: since it, a reply with several `ask_user`
 * calls ends its turn with all of them (numbered, in call order), not the first alone.
 */
export const ALL_QUESTIONS_CHANGE = 'ask-user-all-questions';

/** Several questions as one text the person answers in one reply: "1. …" on a line of its own each. */
export function numberedQuestions(questions: readonly string[]): string {
  return questions.map((q, i) => `${i + 1}. ${q}`).join('\n');
}
