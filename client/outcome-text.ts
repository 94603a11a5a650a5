/** How a turn's outcome reads as one text: the CLI, the chat and the gateway's MCP tools say it the same way. */
import type { TurnOutcome } from '../agent/index';

/** The text of an answered turn, or a one-line description of what happened instead. */
export function outcomeText(outcome: TurnOutcome): string {
  switch (outcome.status) {
    case 'answered':
      return outcome.answer.contents.join('\n');
    case 'ignored':
      return `(input #${outcome.inputSeq} ignored: ${outcome.reason})`;
    case 'error':
      return `(the agent is blocked by an error: ${outcome.error.message})`;
    case 'stopped':
      return '(the agent stopped)';
    case 'reset':
      return '(the agent was reset)';
    case 'continued':
      return '(the agent continued in a new run)';
    case 'interrupted':
      return `(the turn was interrupted${outcome.by ? ` by ${outcome.by}` : ''}; the agent waits for input)`;
    case 'asked':
      return outcome.question;
    case 'archived':
      return `(input #${outcome.inputSeq} was answered long ago; its turn is in the archive: \`history\` shows it)`;
  }
}
