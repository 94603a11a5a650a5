/** Random histories for property tests of the context: turns of input, tool-call rounds (with results), and an answer. */
import fc from 'fast-check';
import { AgentState } from '../../agent/index';

export const invocation = { providerId: 'p', specification: 's', model: 'm' };
const text = fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() !== '');

/** A random history: turns of input, tool-call rounds (with results), and an answer. */
export const history = fc
  .array(
    fc.record({
      input: text,
      rounds: fc.array(fc.array(text, { minLength: 1, maxLength: 3 }), { maxLength: 3 }),
      answer: text,
      answered: fc.boolean(),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((turns) => {
    const s = new AgentState(() => 0);
    s.setSystemInstruction('system instruction');
    turns.forEach((turn, t) => {
      s.appendModelInput({ sections: [{ title: 'Input', content: turn.input }] });
      turn.rounds.forEach((round, r) => {
        s.appendModelOutput({
          contents: [],
          toolCalls: round.map((_, i) => ({ toolName: 't', toolCallId: `c${t}_${r}_${i}`, rawArguments: '{}' })),
          invocation,
        });
        s.appendToolResults({ results: round.map((out, i) => ({ toolName: 't', toolCallId: `c${t}_${r}_${i}`, status: 'Success' as const, result: out })) });
      });
      const last = t === turns.length - 1;
      if (!last || turn.answered) s.appendModelOutput({ contents: [turn.answer], toolCalls: [], invocation });
      if (last && turn.answered) s.appendModelInput({ sections: [{ title: 'Input', content: 'next' }] });
    });
    return s.entries;
  });
