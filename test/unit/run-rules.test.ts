/**
 * The agent rules the workflow run asks of the agent core (agent-run/*): when a retry is at stake, how a
 * waiting client gets its answer, a sub-agent's ids and its report to its parent, and which inputs keep
 * a fingerprint. Pure: the patches around them stay in the workflow.
 */
import {
  Agent,
  answerByReference,
  answerFitsInline,
  hasIdempotencyKey,
  INLINE_ANSWER_CHARS,
  MAX_DERIVED_ID_CHARS,
  type StepDeps,
  subAgentEndedResult,
  subAgentIds,
  subAgentReport,
  type TurnOutcome,
  unfinishedTurnStatus,
} from '../../agent/index';
import { scriptedDeps, FAKE_INVOCATION } from '../support/scripted-deps';

const invocation = FAKE_INVOCATION;
const clock = () => Date.UTC(2026, 0, 1);

const deps = scriptedDeps;

async function untilBlocked(agent: Agent, d: StepDeps): Promise<string> {
  for (let i = 0; i < 20; i++) {
    const outcome = await agent.doStep(d);
    if (outcome !== 'ProgressMade') return outcome;
  }
  throw new Error('did not block');
}

/** An agent that answered its first input with `text`, and that outcome. */
async function answered(text: string): Promise<Extract<TurnOutcome, { status: 'answered' }>> {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  agent.enqueueInput({ text: 'go' });
  await untilBlocked(agent, deps([{ contents: [text], toolCalls: [], invocation }]));
  const outcome = agent.turnOutcome(1);
  if (outcome?.status !== 'answered') throw new Error(`not answered: ${outcome?.status}`);
  return outcome;
}

describe('modelCallAtStake: only a failed or running model call is tried again', () => {
  test('idle, pending input, running tools, blocked on an error', async () => {
    const agent = Agent.create({ config: { model: 'fake:m' }, clock });
    expect(agent.modelCallAtStake()).toBe(false); // idle: a retry would stay armed, unasked
    agent.enqueueInput({ text: 'go' });
    const d = deps([{ contents: ['calling'], toolCalls: [{ toolName: 't', toolCallId: 'c1', rawArguments: '{}', arguments: {} }], invocation }]);
    await agent.doStep(d); // takes the input: PendingInput
    expect(agent.runState).toBe('PendingInput');
    expect(agent.modelCallAtStake()).toBe(true);
    await agent.doStep(d); // the model asks for a tool
    expect(agent.runState).toBe('WaitingToolResults');
    expect(agent.modelCallAtStake()).toBe(false);
    expect(await untilBlocked(agent, d)).toBe('BlockedOnError'); // the next model call fails
    expect(agent.modelCallAtStake()).toBe(true);
    agent.clearError();
    expect(agent.runState).toBe('PendingToolResults');
    expect(agent.modelCallAtStake()).toBe(true);
  });
});

describe('answer delivery: small answers inline, longer ones by reference', () => {
  test('the threshold is the answer entry as JSON', async () => {
    const small = await answered('short');
    expect(answerFitsInline(small)).toBe(true);
    const large = await answered('x'.repeat(INLINE_ANSWER_CHARS));
    expect(answerFitsInline(large)).toBe(false);
  });

  test('by reference: the answer entry is named, not copied', async () => {
    const outcome = await answered('hello');
    expect(answerByReference(outcome, 'run-1')).toEqual({
      inputSeq: 1,
      status: 'answered',
      inputEntrySeq: outcome.inputEntrySeq,
      answerSeq: outcome.answer.seq,
      runId: 'run-1',
    });
  });

  test('a turn unfinished when its run ends: reset before continued before stopped', () => {
    expect(unfinishedTurnStatus({ reset: true, continuing: true })).toBe('reset');
    expect(unfinishedTurnStatus({ reset: false, continuing: true })).toBe('continued');
    expect(unfinishedTurnStatus({ reset: false, continuing: false })).toBe('stopped');
  });
});

describe('sub-agent ids', () => {
  const call = { profile: 'researcher', batchSeq: 4, index: 1 };

  test('the parent id, the profile, the batch and the place in it; the patch is not asked for a short id', () => {
    const asked: string[] = [];
    const ids = subAgentIds('parent', call, () => (asked.push('asked'), true));
    expect(ids).toEqual({ childId: 'parent--researcher-4-2', sender: 'parent' });
    expect(asked).toEqual([]);
  });

  test('a long parent id is shortened when the patch allows it, kept whole when not', () => {
    const parent = 'p'.repeat(MAX_DERIVED_ID_CHARS + 10);
    let asked = 0;
    const short = subAgentIds(parent, call, () => (asked++, true));
    expect(asked).toBe(2); // once for the child id, once for the sender
    expect(short.childId.length).toBe(MAX_DERIVED_ID_CHARS);
    expect(short.childId.endsWith('--researcher-4-2')).toBe(true);
    expect(short.sender.length).toBe(MAX_DERIVED_ID_CHARS);
    expect(subAgentIds(parent, call, () => false)).toEqual({ childId: `${parent}--researcher-4-2`, sender: parent });
  });
});

describe("a sub-agent's report to its parent", () => {
  test('nothing while its task has no outcome and it was not stopped', () => {
    expect(subAgentReport(undefined, undefined)).toBeUndefined();
  });

  test('each outcome', async () => {
    const ok = await answered('the answer');
    expect(subAgentReport(ok, undefined)).toEqual({ status: 'Success', text: 'the answer' });
    expect(subAgentReport({ inputSeq: 1, status: 'asked', question: 'Which one?' }, undefined)).toEqual({
      status: 'Failed',
      text: 'The sub-agent needs an answer it cannot get: Which one?',
    });
    const error = { code: 'X', message: 'boom', runState: 'PendingInput' as const, at: '2026-01-01T00:00:00.000Z' };
    expect(subAgentReport({ inputSeq: 1, status: 'error', error }, undefined)).toEqual({ status: 'Failed', text: 'The sub-agent failed: boom' });
    expect(subAgentReport({ inputSeq: 1, status: 'interrupted' }, 'ignored')).toEqual({
      status: 'Failed',
      text: 'The sub-agent ended without an answer (interrupted).',
    });
    expect(subAgentReport(undefined, 'reset')).toEqual({ status: 'Failed', text: 'The sub-agent ended without an answer (stopped: reset).' });
  });

  test('a long answer is cut at 1 MiB of text', async () => {
    const long = await answered('y'.repeat(1024 * 1024 + 5));
    expect(subAgentReport(long, undefined)?.text.length).toBe(1024 * 1024);
  });

  test('a child that ended without reporting gives its call a Failed result', () => {
    expect(subAgentEndedResult('c1', 'kid', 'Workflow execution terminated')).toEqual({
      toolCallId: 'c1',
      agentId: 'kid',
      status: 'Failed',
      text: 'The sub-agent kid ended without an answer: Workflow execution terminated.',
    });
  });
});

test('only an input that names an idempotency key keeps a fingerprint', () => {
  expect(hasIdempotencyKey({ text: 'hi', idempotencyKey: 'k1' })).toBe(true);
  expect(hasIdempotencyKey({ text: 'hi' })).toBe(false);
  expect(hasIdempotencyKey({ text: 'hi', idempotencyKey: 7 })).toBe(false);
  expect(hasIdempotencyKey('hi')).toBe(false);
  expect(hasIdempotencyKey(null)).toBe(false);
});
