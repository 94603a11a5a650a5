/**
 * The token budget of the context projection: when the rendered context would exceed the model's
 * window, the oldest turns go first. A tool call is never separated from its result, and the system
 * instruction, a compaction's summary and the LiveScreen (on the newest message) always stay.
 */
import { type ContextMessage, unwrap } from './live-context';

export interface BudgetResult {
  messages: ContextMessage[];
  /** Estimated tokens of `messages`. */
  tokens: number;
  /** How many history messages were left out. */
  dropped: number;
}

/**
 * Fits `messages` (as renderLiveContext returns them) into `maxTokens`. If even the minimum — system
 * instruction, the newest turn's input, and its newest call/result group — does not fit, that minimum
 * is returned (and the provider will say the context is too long).
 */
export function fitToBudget(messages: readonly ContextMessage[], maxTokens: number, count: (m: ContextMessage) => number): BudgetResult {
  const head = messages.slice(0, leadingCount(messages));
  const body = messages.slice(head.length);
  const sizes = new Map<ContextMessage, number>(messages.map((m) => [m, count(m)]));
  const sum = (ms: readonly ContextMessage[]) => ms.reduce((n, m) => n + sizes.get(m)!, 0);

  const turns = splitTurns(body);
  let total = sum(messages);
  let dropped = 0;
  // 1. Whole turns, oldest first, keeping the newest.
  while (total > maxTokens && turns.length > 1) {
    const turn = turns.shift()!;
    const flat = turn.flat();
    total -= sum(flat);
    dropped += flat.length;
  }
  // 2. Inside the newest turn: its oldest groups after the input, keeping the input and the newest group.
  const last = turns[0] ?? [];
  while (total > maxTokens && last.length > 2) {
    const [group] = last.splice(1, 1);
    total -= sum(group);
    dropped += group.length;
  }
  return { messages: [...head, ...turns.flat(2)], tokens: total, dropped };
}

/** How many messages lead the context and always stay: the system instruction and a compaction's summary. */
export function leadingCount(messages: readonly ContextMessage[]): number {
  let lead = 0;
  while (lead < messages.length && (messages[lead].kind === 'system' || messages[lead].kind === 'summary')) lead++;
  return lead;
}

type Group = ContextMessage[];

/** Turns start at each model input; each turn is a list of groups that are kept or dropped whole. */
export function splitTurns(body: readonly ContextMessage[]): Group[][] {
  const turns: Group[][] = [];
  for (let i = 0; i < body.length; i++) {
    const m = unwrap(body[i]);
    if (m.kind === 'model_input' || turns.length === 0) turns.push([]);
    const turn = turns[turns.length - 1];
    if (m.kind === 'model_output' && m.toolCalls.length > 0 && i + 1 < body.length && unwrap(body[i + 1]).kind === 'tool_results') {
      turn.push([body[i], body[i + 1]]); // a call and its results: one group
      i++;
    } else {
      turn.push([body[i]]);
    }
  }
  return turns;
}
