/**
 * `ask_user` in the workflow: nothing runs; the question ends the turn once the batch's results are in
 * (see Agent, ToolResultsReady), and the person's reply is the next input.
 */
import { ASK_USER_CHANGE, ASK_USER_TOOL, AskUserArgs } from '../ask-user';
import { parseToolArguments } from '../lenient-args';
import { type ToolKind, callBase } from './tool-kind';

export const askUserKind: ToolKind<true> = {
  name: 'ask_user',
  allowedBy: 'allowance',
  tools: [ASK_USER_TOOL],
  recognise: ({ call }) => (call.toolName === ASK_USER_TOOL.name ? true : undefined),
  change: () => ASK_USER_CHANGE,
  async run({ call }) {
    const base = callBase(call);
    const args = parseToolArguments(AskUserArgs, call);
    if (!args.ok) return { ...base, status: 'Failed', result: args.message, elapsedMs: 0 };
    return {
      ...base,
      status: 'Success',
      result: 'The question was shown to the user; their reply comes as the next input.',
      elapsedMs: 0,
      metadata: { asked_user: true },
    };
  },
};
