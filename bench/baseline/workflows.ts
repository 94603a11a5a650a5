/**
 * The baseline: a bare workflow with the agent's shape and none of its content. It waits for input by
 * update (`ask`, or `sendInput` → seq then `waitForAnswer(seq)`, as the agent), runs per turn `fakeModel` as many times as the agent
 * calls its model and `fakeTool` as many times as the agent runs tools, records trivial entries, and
 * continues as new past a history budget carrying those entries — so every figure of the agent has a
 * twin measured on the same server with what Temporal itself costs.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type * as activities from './activities';

const { fakeModel, fakeTool } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });
/** The twin of an agent with `modelCalls: 'local'`: the model call as a local activity. */
const local = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

/** The agent's default budget (workflows/agent-workflow.ts), so both continue under the same rule. */
const DEFAULT_HISTORY_BUDGET_BYTES = 8 * 1024 * 1024;

export interface BaselineEntry {
  seq: number;
  kind: 'input' | 'answer';
  text: string;
}

export interface BaselineState {
  modelCallsPerTurn: number;
  toolCallsPerTurn: number;
  /** Model calls as local activities (the twin of `modelCalls: 'local'`). */
  localModel?: boolean;
  /** The recovery benchmark's slow tool: each tool run takes this long (absent: instant). */
  toolMs?: number;
  historyBudgetBytes?: number;
  entries?: BaselineEntry[];
  inbox?: Array<{ inputSeq: number; text: string }>;
  nextInputSeq?: number;
  answeredUpTo?: number;
}

export type BaselineOutcome = { inputSeq: number; status: 'answered'; answer: string } | { inputSeq: number; status: 'continued' };

export const sendInput = defineUpdate<{ inputSeq: number }, [{ text: string }]>('sendInput');
export const waitForAnswer = defineUpdate<BaselineOutcome, [{ inputSeq: number }]>('waitForAnswer');
export const ask = defineUpdate<BaselineOutcome, [{ text: string }]>('ask');
export const configure = defineUpdate<void, [{ historyBudgetBytes: number }]>('configure');

export async function baselineAgent(start: BaselineState): Promise<void> {
  const s: Required<Omit<BaselineState, 'toolMs' | 'localModel'>> & Pick<BaselineState, 'toolMs' | 'localModel'> = {
    historyBudgetBytes: DEFAULT_HISTORY_BUDGET_BYTES,
    entries: [],
    inbox: [],
    nextInputSeq: 1,
    answeredUpTo: 0,
    ...start,
  };
  let continuing = false;

  setHandler(sendInput, ({ text }) => {
    const inputSeq = s.nextInputSeq++;
    s.inbox.push({ inputSeq, text });
    return { inputSeq };
  });
  const outcome = async (inputSeq: number): Promise<BaselineOutcome> => {
    await condition(() => s.answeredUpTo >= inputSeq || continuing);
    return s.answeredUpTo >= inputSeq ? { inputSeq, status: 'answered', answer: 'ok' } : { inputSeq, status: 'continued' };
  };
  setHandler(ask, ({ text }) => {
    const inputSeq = s.nextInputSeq++;
    s.inbox.push({ inputSeq, text });
    return outcome(inputSeq);
  });
  setHandler(waitForAnswer, ({ inputSeq }) => outcome(inputSeq), {
    validator: ({ inputSeq }) => {
      if (!(inputSeq >= 1 && inputSeq < s.nextInputSeq)) throw new Error(`No input #${inputSeq}.`);
    },
  });
  setHandler(configure, ({ historyBudgetBytes }) => {
    s.historyBudgetBytes = historyBudgetBytes;
  });

  // The agent's rule, checked at the same points (input taken, turn done): growth of this run past the
  // budget, or Temporal's suggestion after some work.
  const startSize = workflowInfo().historySize;
  let checks = 0;
  const historyTooLong = () => {
    const info = workflowInfo();
    checks++;
    return info.historySize - startSize > s.historyBudgetBytes || (info.continueAsNewSuggested && checks >= 10);
  };
  for (;;) {
    await condition(() => s.inbox.length > 0);
    if (historyTooLong()) break;
    const input = s.inbox.shift()!;
    s.entries.push({ seq: s.entries.length + 1, kind: 'input', text: input.text });
    for (let i = 0; i < s.modelCallsPerTurn; i++) {
      await (s.localModel ? local.fakeModel() : fakeModel());
      if (i < s.toolCallsPerTurn) await (s.toolMs ? fakeTool(s.toolMs) : fakeTool());
    }
    s.entries.push({ seq: s.entries.length + 1, kind: 'answer', text: 'ok' });
    s.answeredUpTo = input.inputSeq;
    if (historyTooLong()) break;
  }
  continuing = true;
  await condition(allHandlersFinished);
  await continueAsNew<typeof baselineAgent>(s);
}
