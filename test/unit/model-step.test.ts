/** The model-call step with plain functions: one call per phase, and the fallback models in order. */
import {
  type AgentConfig,
  type AgentError,
  AgentRunState,
  AgentState,
  ConfigChange,
  InfrastructureError,
  LivecontextError,
  type ModelCallRequest,
  type ModelCallResult,
  NewAgentConfig,
  type StepDeps,
} from '../../agent/index';
import { FALLBACK_MODELS_CHANGE, NO_FALLBACK_CODES, type ModelPhase, runModelStep } from '../../agent/model-step';
import { ModelError } from '../../activities/models/provider-errors';
import { tickingClock } from '../support/scripted-deps';

const clock = tickingClock();

/** Each model answers from its own script: a result, or an error with a code (as the workflow hands them over). */
type Script = Record<string, Array<ModelCallResult | LivecontextError>>;

function answer(model: string, text = `answer from ${model}`): ModelCallResult {
  const [providerId, id] = model.split(':');
  return {
    contents: [text],
    toolCalls: [],
    invocation: { providerId, specification: `${providerId}-wire`, model: id },
    metadata: { estimated_input_tokens: 12 },
  };
}
const failure = (code: string, message = `${code} happened`) => new LivecontextError(code, message);

function setUp(config: AgentConfig, script: Script, options: { since?: (change: string) => boolean } = {}) {
  const state = new AgentState(clock);
  state.appendModelInput({ sections: [{ title: '', content: 'hi' }] });
  let error: AgentError | undefined;
  const requests: ModelCallRequest[] = [];
  const log: string[] = [];
  const deps: StepDeps = {
    async callModel(request) {
      requests.push(request);
      const next = script[request.model]?.shift();
      if (!next) throw new Error(`no script left for ${request.model}`);
      if (next instanceof Error) throw next;
      return next;
    },
    async executeTool() {
      throw new Error('no tools here');
    },
    log: (category, message) => log.push(`${category}: ${message}`),
    ...(options.since ? { since: options.since } : {}),
  };
  const step = (phase: ModelPhase = AgentRunState.PendingInput) =>
    runModelStep({ config, uptoSeq: state.lastSeq, clock, appendOutput: (raw) => state.appendModelOutput(raw), setError: (e) => (error = e) }, phase, deps);
  return { state, requests, log, step, error: () => error };
}

const primary = 'openai:gpt-4.1-mini';
const second = 'anthropic:claude-sonnet-4-6';
const third = 'openai:gpt-4.1';

test('without fallback models a failed call blocks on its error, as before', async () => {
  const t = setUp({ model: primary }, { [primary]: [failure(ModelError.Server, 'Service unavailable')] });
  expect(await t.step()).toBe('BlockedOnError');
  expect(t.requests.map((r) => r.model)).toEqual([primary]);
  expect(t.error()).toMatchObject({ code: ModelError.Server, message: 'Service unavailable', runState: 'PendingInput' });
  expect(t.state.entries.filter((e) => e.kind === 'model_output')).toHaveLength(0);
});

test('an outage of the first model (its retries spent) is answered by the next, which the output records', async () => {
  const t = setUp({ model: primary, fallbackModels: [second, third] }, { [primary]: [failure(ModelError.Server)], [second]: [answer(second)] });
  expect(await t.step()).toBe('ProgressMade');
  expect(t.requests.map((r) => r.model)).toEqual([primary, second]);
  expect(t.requests[1]).toEqual({ ...t.requests[0], model: second }); // the same call, another model
  const out = t.state.lastContextual();
  expect(out).toMatchObject({
    kind: 'model_output',
    contents: [`answer from ${second}`],
    invocation: { providerId: 'anthropic', model: 'claude-sonnet-4-6' },
    metadata: { estimated_input_tokens: 12, fallback_from: [{ model: primary, code: ModelError.Server }] },
  });
  expect(t.error()).toBeUndefined();
  expect(t.log).toContain(`Provider: model call to ${primary} failed (${ModelError.Server}); falling back to ${second}`);
});

test('an answer from the first model carries no fallback record', async () => {
  const t = setUp({ model: primary, fallbackModels: [second] }, { [primary]: [answer(primary)] });
  expect(await t.step()).toBe('ProgressMade');
  expect(t.requests.map((r) => r.model)).toEqual([primary]);
  expect(t.state.lastContextual()).toMatchObject({ metadata: { estimated_input_tokens: 12 } });
  expect((t.state.lastContextual() as { metadata: object }).metadata).not.toHaveProperty('fallback_from');
});

test.each([
  ModelError.Authentication,
  ModelError.MissingApiKey,
  ModelError.NotFound,
  'UNKNOWN_PROVIDER',
  ModelError.ContextLength,
  ModelError.RateLimit,
  ModelError.Stalled,
  'ACTIVITY_FAILED',
])('%s falls back', async (code) => {
  const t = setUp({ model: primary, fallbackModels: [second] }, { [primary]: [failure(code)], [second]: [answer(second)] });
  expect(await t.step()).toBe('ProgressMade');
  expect(t.requests.map((r) => r.model)).toEqual([primary, second]);
});

test.each(NO_FALLBACK_CODES)("%s is the request's fault: no other model is tried", async (code) => {
  const t = setUp({ model: primary, fallbackModels: [second] }, { [primary]: [failure(code, 'bad')], [second]: [answer(second)] });
  expect(await t.step()).toBe('BlockedOnError');
  expect(t.requests.map((r) => r.model)).toEqual([primary]);
  expect(t.error()).toMatchObject({ code, message: 'bad' });
});

test("the codes that do not fall back are the framework's own error types", () => {
  for (const code of NO_FALLBACK_CODES) expect(Object.values(ModelError)).toContain(code);
});

test('when every model fails the agent blocks on the last error, naming the models tried; the next try starts from the first', async () => {
  const t = setUp(
    { model: primary, fallbackModels: [second, third] },
    {
      [primary]: [failure(ModelError.Server), answer(primary, 'back again')],
      [second]: [failure(ModelError.Overloaded)],
      [third]: [failure(ModelError.Authentication, 'bad key')],
    },
  );
  expect(await t.step()).toBe('BlockedOnError');
  expect(t.requests.map((r) => r.model)).toEqual([primary, second, third]);
  expect(t.error()).toMatchObject({
    code: ModelError.Authentication,
    message: `bad key [${third}; tried before it: ${primary} (${ModelError.Server}), ${second} (${ModelError.Overloaded})]`,
  });
  // A retry: the step runs again and begins with the primary model.
  expect(await t.step()).toBe('ProgressMade');
  expect(t.requests.map((r) => r.model)).toEqual([primary, second, third, primary]);
  expect(t.error()).toBeUndefined();
  expect(t.state.lastContextual()).toMatchObject({ contents: ['back again'] });
});

test("a fallback that fails with the request's fault stops the list there", async () => {
  const t = setUp(
    { model: primary, fallbackModels: [second, third] },
    { [primary]: [failure(ModelError.Server)], [second]: [failure(ModelError.BadRequest, 'no such param')] },
  );
  expect(await t.step()).toBe('BlockedOnError');
  expect(t.requests.map((r) => r.model)).toEqual([primary, second]);
  expect(t.error()).toMatchObject({ code: ModelError.BadRequest, message: `no such param [${second}; tried before it: ${primary} (${ModelError.Server})]` });
});

test('after tool results the chain starts at the executor model; a model is tried once', async () => {
  const executor = 'openai:gpt-4.1-nano';
  const t = setUp(
    { model: primary, executorModel: executor, fallbackModels: [executor, primary] },
    { [executor]: [failure(ModelError.Server)], [primary]: [answer(primary)] },
  );
  expect(await t.step(AgentRunState.PendingToolResults)).toBe('ProgressMade');
  expect(t.requests.map((r) => [r.model, r.phase])).toEqual([
    [executor, 'PendingToolResults'],
    [primary, 'PendingToolResults'],
  ]);
  expect(t.state.lastContextual()).toMatchObject({ metadata: { fallback_from: [{ model: executor, code: ModelError.Server }] } });
});

test('replaying a history from before fallback models (the patch answers no): the agent blocks as it did', async () => {
  const asked: string[] = [];
  const t = setUp(
    { model: primary, fallbackModels: [second] },
    { [primary]: [failure(ModelError.Server)], [second]: [answer(second)] },
    { since: (c) => (asked.push(c), false) },
  );
  expect(await t.step()).toBe('BlockedOnError');
  expect(t.requests.map((r) => r.model)).toEqual([primary]);
  expect(asked).toEqual([FALLBACK_MODELS_CHANGE]);
});

test('the patch is asked only when a fallback would be tried, so other histories get no marker', async () => {
  const asked: string[] = [];
  const since = (c: string) => (asked.push(c), true);
  await setUp({ model: primary }, { [primary]: [failure(ModelError.Server)] }, { since }).step();
  await setUp({ model: primary, fallbackModels: [second] }, { [primary]: [answer(primary)] }, { since }).step();
  await setUp({ model: primary, fallbackModels: [second] }, { [primary]: [failure(ModelError.BadRequest)] }, { since }).step();
  expect(asked).toEqual([]);
});

test('a failure of the machinery around the agent is not a model failure: no fallback, nothing recorded', async () => {
  const t = setUp(
    { model: primary, fallbackModels: [second] },
    { [primary]: [new InfrastructureError('UNDECODABLE_RESULT', 'cannot decode')], [second]: [answer(second)] },
  );
  await expect(t.step()).rejects.toThrow(InfrastructureError);
  expect(t.requests.map((r) => r.model)).toEqual([primary]);
  expect(t.error()).toBeUndefined();
});

test('fallbackModels is validated like model, at start and in a configuration change', () => {
  expect(NewAgentConfig.safeParse({ model: primary, fallbackModels: [second] }).success).toBe(true);
  expect(ConfigChange.safeParse({ fallbackModels: [] }).success).toBe(true);
  const bad = NewAgentConfig.safeParse({ model: primary, fallbackModels: ['claude'] });
  expect(bad.success).toBe(false);
  expect(bad.error?.issues[0]).toMatchObject({ path: ['fallbackModels', 0], message: expect.stringContaining('provider:model') });
  expect(ConfigChange.safeParse({ fallbackModels: 'openai:gpt-4.1' }).success).toBe(false);
  expect(ConfigChange.safeParse({ fallbackModels: [second, third, primary, second, third] }).success).toBe(false);
});
