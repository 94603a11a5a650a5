/**
 * The tool kind registry (agent/tool-kinds/) through the Agent's public API: which kind takes a call,
 * which workflow patches (StepDeps.since) the tool step asks for it — only those of a kind that
 * recognises the call, as recorded histories expect — and what a history recorded before a kind does.
 */
import {
  ASK_USER_TOOL,
  Agent,
  type AgentConfig,
  type StepDeps,
  TIMER_TOOLS,
  type ToolCallRequest,
  type ToolCallResult,
  enumerateWidgetTools,
} from '../../agent/index';
import { TOOL_KINDS, inWorkflowTools } from '../../agent/tool-kinds/index';
import { FAKE_INVOCATION } from '../support/scripted-deps';

const invocation = FAKE_INVOCATION;
const clock = () => Date.UTC(2026, 0, 1);

const call = (toolName: string, args: Record<string, unknown> = {}): ToolCallRequest => ({
  toolName,
  toolCallId: `c-${toolName}`,
  rawArguments: JSON.stringify(args),
  arguments: args as ToolCallRequest['arguments'],
});

/** Runs the tool step for one call; says what ran where and which patches the step asked. */
async function toolStep(c: ToolCallRequest, config: Omit<AgentConfig, 'model'> = {}, before: readonly string[] = []) {
  const asked: string[] = [];
  const executed: string[] = [];
  const delegated: string[] = [];
  let inToolStep = false;
  const outputs = [{ contents: [], toolCalls: [c], invocation }];
  const d: StepDeps = {
    async callModel() {
      return outputs.shift()!;
    },
    async executeTool(x): Promise<ToolCallResult> {
      executed.push(x.toolName);
      return { toolCallId: x.toolCallId, toolName: x.toolName, status: 'Success', result: 'ran' };
    },
    sleep: async () => true,
    since(change) {
      if (inToolStep) asked.push(change);
      return !before.includes(change);
    },
    delegate: {
      async start(r) {
        delegated.push(r.profile);
        return `child-${r.profile}`;
      },
      async wait() {
        return false; // interrupted: the call stays pending
      },
    },
  };
  const agent = Agent.create({ config: { model: 'fake:m', ...config }, clock });
  agent.enqueueInput({ text: 'go' });
  await agent.doStep(d);
  await agent.doStep(d);
  inToolStep = true;
  await agent.doStep(d);
  return { asked, executed, delegated, result: agent.pendingToolResults[0] };
}

const helper = { helper: { model: 'fake:m' } };

test('the tools that run in the workflow are offered in the order they always were: widgets, timers, ask_user', () => {
  expect(inWorkflowTools().map((t) => t.name)).toEqual([...enumerateWidgetTools(), ...TIMER_TOOLS, ASK_USER_TOOL].map((t) => t.name));
  expect(TOOL_KINDS.map((k) => k.name)).toEqual(['sub-agent', 'widget', 'timer', 'ask_user', 'activity']);
});

test('an ordinary tool goes to the executor, and no patch is asked for it', async () => {
  expect(await toolStep(call('work'))).toMatchObject({ asked: [], executed: ['work'] });
  expect(await toolStep(call('work'), { subAgents: helper })).toMatchObject({ asked: [], executed: ['work'] });
});

test('each in-workflow kind asks its own patch, and only for a call it recognises', async () => {
  expect(await toolStep(call('ask_user', { question: 'Which?' }))).toMatchObject({
    asked: ['ask-user-tool'],
    executed: [],
    result: { metadata: { asked_user: true } },
  });
  expect(await toolStep(call('todo_add', { title: 'a' }))).toMatchObject({ asked: ['task-list-widget'], executed: [] });
  expect(await toolStep(call('memory_notebook_replace', { old_str: '', new_str: 'x' }))).toMatchObject({ asked: [], executed: [] });
  expect(await toolStep(call('sleep', { seconds: 1 }))).toMatchObject({ asked: [], executed: [], result: { status: 'Success' } });
  expect(await toolStep(call('ask_helper', { task: 't' }), { subAgents: helper })).toMatchObject({
    asked: ['sub-agents'],
    executed: [],
    delegated: ['helper'],
  });
});

test('a history recorded before a kind came runs the call as the next kind would: here, the executor', async () => {
  expect(await toolStep(call('ask_user', { question: 'Which?' }), {}, ['ask-user-tool'])).toMatchObject({ asked: ['ask-user-tool'], executed: ['ask_user'] });
  expect(await toolStep(call('todo_add', { title: 'a' }), {}, ['task-list-widget'])).toMatchObject({ executed: ['todo_add'] });
  expect(await toolStep(call('ask_helper', { task: 't' }), { subAgents: helper }, ['sub-agents'])).toMatchObject({
    asked: ['sub-agents'],
    executed: ['ask_helper'],
  });
});

test('the order is part of the contract: a sub-agent named "user" takes ask_user, before the ask_user kind is asked', async () => {
  const user = { user: { model: 'fake:m' } };
  expect(await toolStep(call('ask_user', { task: 't' }), { subAgents: user })).toMatchObject({ asked: ['sub-agents'], delegated: ['user'], executed: [] });
  expect(await toolStep(call('ask_user', { question: 'q' }), { subAgents: user }, ['sub-agents'])).toMatchObject({
    asked: ['sub-agents', 'ask-user-tool'],
    delegated: [],
  });
});

test('outside the allowance the in-workflow kinds pass a call to the executor (which refuses it); a sub-agent the config names is allowed', async () => {
  expect(await toolStep(call('sleep', { seconds: 1 }), { tools: ['work'] })).toMatchObject({ asked: [], executed: ['sleep'] });
  expect(await toolStep(call('ask_user', { question: 'q' }), { tools: ['work'] })).toMatchObject({ asked: [], executed: ['ask_user'] });
  expect(await toolStep(call('ask_helper', { task: 't' }), { tools: ['work'], subAgents: helper })).toMatchObject({ delegated: ['helper'], executed: [] });
});
