/**
 * The widget registry (task list, host writes, rebuild from history), the one tool allowance rule with
 * patterns, the core's configure/status, and the ExecuteError of a batch that cannot run as a whole.
 */
import {
  Agent,
  IDEMPOTENCY_KEYS_KEPT,
  MAX_TOOL_CALLS_PER_BATCH,
  type ModelCallResult,
  type StepDeps,
  TaskListWidget,
  type ToolCallRequest,
  approvalPolicy,
  buildLiveScreen,
  readSnapshot,
  rebuildWidgets,
  renderLiveContext,
  toolAllowed,
} from '../../agent/index';
import { ToolRegistry } from '../../activities/tools/registry';
import { defineTool } from '../../activities/index';
import { z } from 'zod';
import { FAKE_INVOCATION, tickingClock } from '../support/scripted-deps';

const invocation = FAKE_INVOCATION;
const clock = tickingClock();
const call = (toolName: string, args: unknown, id = `c-${Math.random().toString(36).slice(2)}`): ToolCallRequest => ({
  toolName,
  toolCallId: id,
  rawArguments: JSON.stringify(args),
  arguments: args as Record<string, never>,
});

function deps(outputs: ModelCallResult[], since?: (c: string) => boolean): StepDeps & { toolRuns: string[] } {
  const toolRuns: string[] = [];
  return {
    toolRuns,
    async callModel() {
      const next = outputs.shift();
      if (!next) throw Object.assign(new Error('script ran out'), { code: 'SCRIPT_EMPTY' });
      return next;
    },
    async executeTool(c) {
      toolRuns.push(c.toolName);
      return { toolCallId: c.toolCallId, toolName: c.toolName, status: 'Failed', result: `Unknown tool "${c.toolName}".` };
    },
    ...(since ? { since } : {}),
  };
}

async function turn(agent: Agent, d: StepDeps, text: string) {
  agent.enqueueInput({ text });
  for (let i = 0; i < 50; i++) if ((await agent.doStep(d)) !== 'ProgressMade') return;
  throw new Error('did not block');
}

describe('tool allowance', () => {
  test('exact names, prefix* patterns, * for all, absent for all', () => {
    expect(toolAllowed(undefined, 'anything')).toBe(true);
    expect(toolAllowed(['read_file'], 'read_file')).toBe(true);
    expect(toolAllowed(['read_file'], 'read_files')).toBe(false);
    expect(toolAllowed(['github_*'], 'github_create_issue')).toBe(true);
    expect(toolAllowed(['github_*'], 'gitlab_x')).toBe(false);
    expect(toolAllowed(['*'], 'x')).toBe(true);
    expect(toolAllowed([], 'x')).toBe(false);
  });

  test('approval: an exact entry wins, then the longest pattern', () => {
    const approval = { 'github_*': 'always' as const, github_read_file: 'never' as const, 'github_create_*': 'never' as const };
    expect(approvalPolicy(approval, 'github_read_file')).toBe('never');
    expect(approvalPolicy(approval, 'github_create_issue')).toBe('never');
    expect(approvalPolicy(approval, 'github_delete_repo')).toBe('always');
    expect(approvalPolicy(approval, 'other')).toBeUndefined();
  });

  test('the registry offers tools by pattern, in-workflow tools first, and says where a duplicate came from', () => {
    const t = (name: string) => defineTool({ name, description: name, parameters: z.object({}), execute: async () => 'ok' });
    const registry = new ToolRegistry([t('deploy')], [{ name: 'mcp:github', tools: [t('github_issue'), t('github_pr')] }]);
    expect(registry.specsFor(['github_*', 'todo_*']).map((s) => s.name)).toEqual(['todo_add', 'todo_update', 'github_issue', 'github_pr']);
    expect(registry.list().find((l) => l.name === 'github_pr')).toMatchObject({ source: 'mcp:github' });
    expect(registry.list().find((l) => l.name === 'todo_add')).toMatchObject({ source: 'workflow' });
    expect(() => registry.register(t('github_pr'), 'user')).toThrow(/by mcp:github and by user/);
    expect(() => registry.register(t('todo_add'))).toThrow(/runs in the workflow/);
  });
});

describe('task list widget', () => {
  test('add, update, render; bad calls fail with what to fix and change nothing', () => {
    const w = new TaskListWidget();
    expect(w.renderLiveScreen()).toBeUndefined(); // nothing in the Live Screen until there are tasks
    expect(w.executeTool('todo_add', { titles: ['a', 'b'] })).toMatchObject({ status: 'Success', metadata: { ids: [1, 2] } });
    expect(w.executeTool('todo_add', { title: 'c' })).toMatchObject({ status: 'Success', metadata: { ids: [3] } });
    expect(w.executeTool('todo_update', { id: 2, status: 'in_progress' })).toMatchObject({ status: 'Success' });
    expect(w.executeTool('todo_update', { id: 1, status: 'done' })).toMatchObject({ status: 'Success' });
    expect(w.executeTool('todo_update', { id: 9, status: 'done' })).toMatchObject({ status: 'Failed', result: expect.stringMatching(/no task #9/) });
    expect(w.executeTool('todo_update', { id: 1 })).toMatchObject({ status: 'Failed' });
    expect(w.executeTool('todo_add', {})).toMatchObject({ status: 'Failed', result: expect.stringMatching(/title or titles/) });
    expect(w.executeTool('todo_add', { titles: Array.from({ length: 101 }, (_, i) => `t${i}`) })).toMatchObject({ status: 'Failed' });
    expect(w.renderLiveScreen()).toBe('## Tasks\n\n1 of 3 done.\n\n- [x] 1. a\n- [~] 2. b (in progress)\n- [ ] 3. c');
    expect(buildLiveScreen([w])).toMatch(/^# \[Live Screen\]\n\n## Tasks/);
  });

  test('tasks and host writes: live state, snapshot and rebuild from history agree', async () => {
    const agent = Agent.create({ config: { model: 'fake:m' }, clock });
    const d = deps([
      { contents: [], toolCalls: [call('todo_add', { titles: ['x', 'y'] })], invocation },
      { contents: ['planned'], toolCalls: [], invocation },
      {
        contents: [],
        toolCalls: [call('todo_update', { id: 2, status: 'done' }), call('memory_notebook_replace', { old_text: '', new_text: ' and more' })],
        invocation,
      },
      { contents: ['ok'], toolCalls: [], invocation },
    ]);
    await turn(agent, d, 'plan');
    agent.writeWidget('memory_notebook', { set: 'from the host' }, 'ops');
    await turn(agent, d, 'go');
    expect(d.toolRuns).toEqual([]); // widget tools run in the agent, never as activities
    expect(agent.status({ stopping: false }).tasks).toEqual([
      { id: 1, title: 'x', status: 'pending' },
      { id: 2, title: 'y', status: 'done' },
    ]);
    expect(agent.notebook.content).toBe('from the host and more');
    const rebuilt = rebuildWidgets(agent.state.entries);
    expect(rebuilt.map((w) => w.toJSON())).toEqual(agent.widgets.map((w) => w.toJSON()));
    const restored = Agent.fromSnapshot(JSON.parse(JSON.stringify(agent.toSnapshot())), clock);
    expect(restored.taskList.tasks).toEqual(agent.taskList.tasks);
    expect(restored.notebook.content).toBe('from the host and more');
  });

  test('an agent that never keeps tasks carries no task state; host writes are validated before they are taken', () => {
    const agent = Agent.create({ config: { model: 'fake:m' }, clock });
    expect(Object.keys(agent.toSnapshot().widgets)).toEqual(['memory_notebook']);
    expect(() => agent.checkWidgetWrite('memory_notebook', { set: 'x'.repeat(70_000) })).toThrow(/at most 65536/);
    expect(() => agent.checkWidgetWrite('memory_notebook', { replace: 'x' })).toThrow(/"set"/);
    expect(() => agent.checkWidgetWrite('task_list', { set: 'x' })).toThrow(/takes no writes/);
    expect(() => agent.checkWidgetWrite('nope', {})).toThrow(/no widget "nope"/);
    expect(agent.state.entries).toHaveLength(0);
  });

  test('a history recorded before the task list ran todo_add as an ordinary tool, and replays so', async () => {
    const agent = Agent.create({ config: { model: 'fake:m' }, clock });
    const d = deps(
      [
        { contents: [], toolCalls: [call('todo_add', { title: 'x' })], invocation },
        { contents: ['ok'], toolCalls: [], invocation },
      ],
      (change) => change !== 'task-list-widget',
    );
    await turn(agent, d, 'plan');
    expect(d.toolRuns).toEqual(['todo_add']);
    expect(agent.taskList.tasks).toEqual([]);
  });
});

describe('the core owns configuration and status', () => {
  test('configure validates, applies and records a new system instruction', () => {
    const agent = Agent.create({ config: { model: 'fake:m' }, clock });
    expect(() => agent.checkConfigChange({ model: 'nocolon' })).toThrow(expect.objectContaining({ code: 'BAD_CONFIG' }));
    expect(() => agent.checkConfigChange({ bogus: 1 })).toThrow(expect.objectContaining({ code: 'BAD_CONFIG' }));
    agent.configure({ model: 'fake:n', systemInstruction: 'Be brief.', tools: ['github_*'] });
    expect(agent.config).toMatchObject({ model: 'fake:n', tools: ['github_*'] });
    expect(agent.state.entries.map((e) => e.kind)).toEqual(['system_instruction']);
    agent.configure({ systemInstruction: 'Be brief.' }); // unchanged: no second entry
    expect(agent.state.entries).toHaveLength(1);
  });

  test('blockedOn says approval only when the call that must run next waits for a decision', async () => {
    const agent = Agent.create({ config: { model: 'fake:m', approval: { 'danger_*': 'always' } }, clock });
    const d = deps([{ contents: [], toolCalls: [call('danger_rm', {}, 'a'), call('safe', {}, 'b')], invocation }]);
    await turn(agent, d, 'go');
    expect(agent.status({ stopping: false })).toMatchObject({ blockedOn: 'approval', awaitingApproval: [{ toolCallId: 'a', toolName: 'danger_rm' }] });
  });
});

describe('ExecuteError (seed 000)', () => {
  test(`a reply with more than ${MAX_TOOL_CALLS_PER_BATCH} tool calls runs none: one ExecuteError answers the batch, and the model goes on`, async () => {
    const agent = Agent.create({ config: { model: 'fake:m' }, clock });
    const many = Array.from({ length: MAX_TOOL_CALLS_PER_BATCH + 1 }, (_, i) => call('t', {}, `id${i}`));
    const d = deps([
      { contents: [], toolCalls: many, invocation },
      { contents: ['fewer then'], toolCalls: [], invocation },
    ]);
    await turn(agent, d, 'go');
    expect(d.toolRuns).toEqual([]);
    const results = agent.state.entries.find((e) => e.kind === 'tool_results');
    expect(results).toMatchObject({ results: [], executeError: expect.stringMatching(/129 tool calls at once; at most 128/) });
    expect(agent.state.entries.at(-1)).toMatchObject({ kind: 'model_output', contents: ['fewer then'] });
    // Carried and rendered: every call is answered for the provider, as failed with the batch's reason.
    expect(() => readSnapshot(JSON.parse(JSON.stringify(agent.toSnapshot())))).not.toThrow();
    const rendered = renderLiveContext(agent.state.entries).find((m) => m.kind === 'tool_results');
    expect(rendered).toMatchObject({ results: expect.arrayContaining([expect.objectContaining({ toolCallId: 'id128', status: 'Failed' })]) });
  });

  test('a history recorded before the limit runs the batch', async () => {
    const agent = Agent.create({ config: { model: 'fake:m', parallelTools: true }, clock });
    const many = Array.from({ length: MAX_TOOL_CALLS_PER_BATCH + 1 }, (_, i) => call('t', {}, `id${i}`));
    const d = deps(
      [
        { contents: [], toolCalls: many, invocation },
        { contents: ['done'], toolCalls: [], invocation },
      ],
      (c) => c !== 'tool-batch-limit',
    );
    await turn(agent, d, 'go');
    expect(d.toolRuns).toHaveLength(MAX_TOOL_CALLS_PER_BATCH + 1);
  });
});

describe('idempotency keys', () => {
  test('a key taken once returns its inputSeq; kept across snapshots and reset; the oldest are forgotten past the limit', () => {
    const agent = Agent.create({ config: { model: 'fake:m' }, clock });
    expect(agent.enqueueInput({ text: 'a', idempotencyKey: 'k1' })).toEqual({ inputSeq: 1 });
    expect(agent.enqueueInput({ text: 'a again', idempotencyKey: 'k1' })).toEqual({ inputSeq: 1, duplicate: true });
    expect(agent.inbox).toHaveLength(1);
    const carried = Agent.fromSnapshot(JSON.parse(JSON.stringify(agent.toSnapshot())), clock);
    expect(carried.enqueueInput({ text: 'a', idempotencyKey: 'k1' })).toEqual({ inputSeq: 1, duplicate: true });
    const afterReset = Agent.fromSnapshot(carried.resetSnapshot(), clock);
    expect(afterReset.enqueueInput({ text: 'a', idempotencyKey: 'k1' })).toEqual({ inputSeq: 1, duplicate: true });
    for (let i = 0; i < IDEMPOTENCY_KEYS_KEPT; i++) carried.enqueueInput({ text: `n${i}`, idempotencyKey: `n${i}` });
    expect(carried.enqueueInput({ text: 'a', idempotencyKey: 'k1' })).toEqual({ inputSeq: IDEMPOTENCY_KEYS_KEPT + 2 }); // forgotten: a new input
    expect(() => agent.enqueueInput({ text: 'x', idempotencyKey: '' })).toThrow(/idempotencyKey/);
    expect(agent.toSnapshot().acceptedKeys).toEqual([['k1', 1]]);
    expect(Agent.create({ config: { model: 'fake:m' }, clock }).toSnapshot().acceptedKeys).toBeUndefined();
  });
});
