/**
 * A model call that blocks the agent leaves a model_failure entry: what failed (code, message, model),
 * when, after how many attempts (when the workflow side knew them) and which fallbacks failed before.
 * It is the record's, never the model's: the rendered context, a compaction's transcript, `recall` and
 * `expand` leave it out; turns and snapshots stay valid; `history` prints it. Its patch is asked only
 * when a call blocks, and a history recorded before it (the patch answers no) gets no entry.
 */
import { Agent, LivecontextError, type ModelFailureEntry, type StepDeps, renderLiveContext } from '../../agent/index';
import { MODEL_FAILURE_ENTRY_CHANGE } from '../../agent/model-step';
import { expandText } from '../../activities/tools/archive-text';
import { formatEntry } from '../../cli/format';
import { entryText } from '../../common/archive/entry-text';
import { FAKE_INVOCATION, tickingClock } from '../support/scripted-deps';

const answer = { contents: ['hello'], toolCalls: [], invocation: FAKE_INVOCATION };
/** A failure as the workflow hands it over: the activity's type as code, `attempts` when its retries ran out. */
const failure = (code: string, message: string, attempts?: number) => Object.assign(new LivecontextError(code, message), attempts ? { attempts } : {});

function setUp(script: Record<string, Array<Error | typeof answer>>, since?: (change: string) => boolean) {
  const asked: string[] = [];
  const deps: StepDeps = {
    async callModel(request) {
      const next = script[request.model]?.shift();
      if (!next) throw new Error(`no script left for ${request.model}`);
      if (next instanceof Error) throw next;
      return next;
    },
    async executeTool() {
      throw new Error('no tools here');
    },
    since: (change) => {
      asked.push(change);
      return since?.(change) ?? true;
    },
  };
  return { deps, asked };
}

async function blockedAgent(config: { model: string; fallbackModels?: string[] }, deps: StepDeps): Promise<Agent> {
  const agent = Agent.create({ config, clock: tickingClock() });
  agent.enqueueInput({ text: 'hi' });
  expect(await agent.doStep(deps)).toBe('ProgressMade'); // the input
  expect(await agent.doStep(deps)).toBe('BlockedOnError');
  return agent;
}

test('a call whose retries ran out: the entry says what, which model, when and after how many attempts; a retry answers after it', async () => {
  const { deps, asked } = setUp({ 'fake:m': [failure('ModelError.Server', '503 Service Unavailable', 6), answer] });
  const agent = await blockedAgent({ model: 'fake:m' }, deps);
  const entry = agent.state.entries.at(-1) as ModelFailureEntry;
  expect(entry).toEqual({
    kind: 'model_failure',
    seq: 2,
    timestamp: expect.any(String),
    code: 'ModelError.Server',
    message: '503 Service Unavailable',
    model: 'fake:m',
    call: 'model',
    attempts: 6,
  });
  expect(Date.parse(entry.timestamp)).toBeGreaterThanOrEqual(Date.parse(agent.lastError!.at)); // when: the clock at the block
  expect(asked).toEqual([MODEL_FAILURE_ENTRY_CHANGE]);
  expect(agent.runState).toBe('PendingInput'); // the entry changes no state: the agent still owes the answer

  // The model never sees it: the context is the input alone, as before the failure.
  expect(renderLiveContext(agent.state.entries).map((m) => m.kind)).toEqual(['model_input']);
  agent.clearError();
  expect(await agent.doStep(deps)).toBe('ProgressMade');
  expect(agent.state.entries.map((e) => e.kind)).toEqual(['model_input', 'model_failure', 'model_output']);
  expect(asked).toEqual([MODEL_FAILURE_ENTRY_CHANGE]); // a call that answers asks nothing
  // Turns and snapshots stay valid with it, and it survives a snapshot round trip.
  const copy = Agent.fromSnapshot(JSON.parse(JSON.stringify(agent.toSnapshot())), tickingClock());
  expect(copy.state.entries).toEqual(agent.state.entries);
  expect(renderLiveContext(copy.state.entries).map((m) => m.kind)).toEqual(['model_input', 'model_output']);
});

test('a fallback chain that fails to its end names the models before the last; a long message is cut', async () => {
  const long = 'x'.repeat(5000);
  const { deps } = setUp({ 'fake:a': [failure('ModelError.Overloaded', 'busy')], 'fake:b': [failure('ModelError.Authentication', long)] });
  const agent = await blockedAgent({ model: 'fake:a', fallbackModels: ['fake:b'] }, deps);
  const entry = agent.state.entries.at(-1) as ModelFailureEntry;
  expect(entry).toMatchObject({ code: 'ModelError.Authentication', model: 'fake:b', fallbackFrom: [{ model: 'fake:a', code: 'ModelError.Overloaded' }] });
  expect(entry.attempts).toBeUndefined(); // not known: the workflow side gave none
  expect(entry.message).toHaveLength(2000);
  expect(agent.lastError!.message).toMatch(/tried before it: fake:a/); // lastError keeps its own wording
});

test('replaying a history from before the patch: the agent blocks as it did, with no entry', async () => {
  const { deps, asked } = setUp({ 'fake:m': [failure('ModelError.Server', 'down')] }, () => false);
  const agent = await blockedAgent({ model: 'fake:m' }, deps);
  expect(agent.state.entries.map((e) => e.kind)).toEqual(['model_input']);
  expect(agent.lastError).toMatchObject({ code: 'ModelError.Server' });
  expect(asked).toEqual([MODEL_FAILURE_ENTRY_CHANGE]);
});

test('history prints it; recall finds nothing in it and expand leaves it out', async () => {
  const { deps } = setUp({ 'fake:m': [failure('ModelError.Server', 'down', 6), answer] });
  const agent = await blockedAgent({ model: 'fake:m' }, deps);
  const entry = agent.state.entries.at(-1) as ModelFailureEntry;
  expect(formatEntry(entry)).toEqual([
    `#2 ✗ model call to fake:m failed after 6 attempts at ${entry.timestamp} (ModelError.Server): down; the agent was blocked on it`,
  ]);
  expect(entryText(entry)).toBe('');
  const shown = expandText(agent.state.entries, { fromSeq: 1, toSeq: 2 }, 2);
  expect(shown).toContain('#1 · input');
  expect(shown).not.toContain('model_failure');
  expect(shown).not.toContain('down');
});

test('a failure that cannot be recorded still blocks the agent on its error', async () => {
  const { deps } = setUp({ 'fake:m': [failure('', 'no code at all')] });
  const agent = await blockedAgent({ model: 'fake:m' }, deps);
  expect(agent.state.entries.at(-1)).toMatchObject({ kind: 'model_failure', code: 'MODEL_CALL_FAILED', message: 'no code at all' });
});
