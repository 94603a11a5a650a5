/**
 * One durable wait (agent/waits.ts) and tool rules (agent/tool-rules.ts) through the Agent's public API:
 * an approval, a question and their first-answer-wins refusals; rules that allow, ask and deny by tool
 * name and argument; "don't ask again"; the record of who answered, through which door, when.
 */
import { Agent, type AgentConfig, type StepDeps, type ToolCallRequest, type ToolResultsEntry, type ModelCallResult, matchToolRule } from '../../agent/index';
import { FAKE_INVOCATION, tickingClock } from '../support/scripted-deps';

const invocation = FAKE_INVOCATION;
const call = (toolCallId: string, toolName: string, args: Record<string, unknown> = {}): ToolCallRequest => ({
  toolName,
  toolCallId,
  rawArguments: JSON.stringify(args),
  arguments: args as ToolCallRequest['arguments'],
});

/** Deps whose model asks for each batch of `batches` in turn, then answers; records the calls run. */
function deps(...batches: ToolCallRequest[][]) {
  const outputs: ModelCallResult[] = [
    ...batches.map((toolCalls) => ({ contents: [], toolCalls, invocation })),
    { contents: ['done'], toolCalls: [], invocation },
  ];
  const d: StepDeps & { ran: string[] } = {
    ran: [],
    async callModel() {
      const next = outputs.shift();
      if (!next) throw new Error('the model script ran out');
      return next;
    },
    async executeTool(c) {
      d.ran.push(`${c.toolName} ${c.rawArguments}`);
      return { toolCallId: c.toolCallId, toolName: c.toolName, status: 'Success', result: 'ok' };
    },
  };
  return d;
}

async function started(config: Omit<AgentConfig, 'model'>, d: StepDeps): Promise<Agent> {
  const agent = Agent.create({ config: { model: 'fake:m', ...config }, clock: tickingClock() });
  agent.enqueueInput({ text: 'go' });
  await agent.doStep(d);
  await agent.doStep(d);
  return agent;
}

/** Steps until the agent blocks (on a wait, or for input); returns the last tool results. */
async function settle(agent: Agent, d: StepDeps): Promise<ToolResultsEntry | undefined> {
  for (let i = 0; i < 30; i++) {
    const outcome = await agent.doStep(d);
    if (outcome !== 'ProgressMade') break;
  }
  return agent.state.entries.filter((e): e is ToolResultsEntry => e.kind === 'tool_results').at(-1);
}

describe('an approval is one wait: the first answer wins', () => {
  test('answered through two doors: the second is refused naming the first; the result records it', async () => {
    const d = deps([call('c1', 'write_file', { path: 'a' })]);
    const agent = await started({ approval: { write_file: 'always' } }, d);
    await settle(agent, d);
    const [wait] = agent.status({ stopping: false }).waits!;
    expect(wait).toMatchObject({ kind: 'approval', toolCallId: 'c1', toolName: 'write_file', waitId: 'approval-2-c1' });

    agent.answerWait({ waitId: wait.waitId, answer: { approved: true }, door: 'rest', by: 'ana' });
    expect(() => agent.checkWaitAnswer({ waitId: wait.waitId, answer: { approved: false }, door: 'mcp' })).toThrow(
      /^Wait approval-2-c1 was already answered by rest \/ ana at \S+ \(approved\); this answer changes nothing\.$/,
    );
    expect(() => agent.decideToolCall({ toolCallId: 'c1', approved: false, door: 'cli' })).toThrow(/already answered by rest \/ ana/);
    const results = await settle(agent, d);
    expect(results!.results[0]).toMatchObject({
      status: 'Success',
      metadata: { decision: { approved: true, door: 'rest', by: 'ana', at: expect.any(String) } },
    });
    // After its batch is recorded, the refusal still names the first answer.
    expect(() => agent.checkWaitAnswer({ waitId: wait.waitId, answer: { approved: false }, door: 'cli' })).toThrow(/already answered by rest \/ ana/);
    expect(() => agent.checkDecision({ toolCallId: 'c1', approved: true })).toThrow(/already answered by rest \/ ana/);
  });

  test('a history recorded before the change keeps its last decision (the change asked, and absent)', async () => {
    const d = deps([call('c1', 'write_file')]);
    const agent = await started({ approval: { write_file: 'always' } }, d);
    await settle(agent, d);
    const asked: string[] = [];
    const before = (change: string) => (asked.push(change), false);
    agent.decideToolCall({ toolCallId: 'c1', approved: true }, before);
    expect(asked).toEqual([]); // asked only when a second decision comes
    agent.decideToolCall({ toolCallId: 'c1', approved: false, reason: 'changed my mind' }, before);
    expect(asked).toEqual(['one-answer-per-wait']);
    expect(agent.approvals.c1).toMatchObject({ status: 'denied' });
  });

  test('a wait id that is not open, or an answer of the wrong shape, is refused clearly', async () => {
    const d = deps([call('c1', 'write_file')]);
    const agent = await started({ approval: { write_file: 'always' } }, d);
    await settle(agent, d);
    expect(() => agent.checkWaitAnswer({ waitId: 'nonsense', answer: { approved: true } })).toThrow(/^No wait "nonsense"/);
    expect(() => agent.checkWaitAnswer({ waitId: 'approval-9-c1', answer: { approved: true } })).toThrow(/No open wait approval-9-c1/);
    expect(() => agent.checkWaitAnswer({ waitId: 'approval-2-c1', answer: { text: 'yes' } })).toThrow(/is \{"approved": true\|false/);
  });
});

describe('a question (ask_user) is one wait', () => {
  test('the reply through the wait is the next input, marked as its answer; a second reply is refused, not queued', async () => {
    const d = deps([call('q1', 'ask_user', { question: 'Which file?' })]);
    const agent = await started({}, d);
    await settle(agent, d);
    const [wait] = agent.waits();
    expect(wait).toMatchObject({ kind: 'question', question: 'Which file?' });
    const answered = agent.answerWait({ waitId: wait.waitId, answer: { text: 'a.txt' }, door: 'page', by: 'ana' });
    expect(answered).toEqual({ waitId: wait.waitId, kind: 'question', inputSeq: 2 });
    expect(agent.waits()).toEqual([]);
    expect(() => agent.checkWaitAnswer({ waitId: wait.waitId, answer: { text: 'b.txt' }, door: 'rest' })).toThrow(
      new RegExp(`^Wait ${wait.waitId} was already answered by page / ana at \\S+ \\(input #2\\)`),
    );
    await settle(agent, d);
    const input = agent.state.entries.find((e) => e.kind === 'model_input' && e.inputSeq === 2);
    expect(input).toMatchObject({ answers: { waitId: wait.waitId, door: 'page', by: 'ana' } });
    expect(() => agent.checkWaitAnswer({ waitId: wait.waitId, answer: { text: 'b.txt' }, door: 'rest' })).toThrow(/already answered by page \/ ana/);
    expect(agent.status({ stopping: false }).inboxLength).toBe(0);
  });

  test('a plain input that came first answers the question: a reply through the wait is refused', async () => {
    const d = deps([call('q1', 'ask_user', { question: 'Which file?' })]);
    const agent = await started({}, d);
    await settle(agent, d);
    const [wait] = agent.waits();
    agent.enqueueInput({ text: 'a.txt', sender: 'bob' });
    expect(() => agent.checkWaitAnswer({ waitId: wait.waitId, answer: { text: 'b.txt' } })).toThrow(/already answered by input \/ bob at \S+ \(input #2\)/);
  });
});

describe('tool rules', () => {
  const rules = [
    { tool: 'read_*', action: 'allow' as const },
    { tool: 'run_command', args: { command: { word: 'rm' } }, action: 'deny' as const, reason: 'no deletions' },
    { tool: 'write_*', action: 'ask' as const },
  ];

  test('match by name pattern and argument, first rule first', () => {
    expect(matchToolRule(rules, call('x', 'read_file'))?.number).toBe(1);
    expect(matchToolRule(rules, call('x', 'run_command', { command: 'rm -rf build' }))?.number).toBe(2);
    expect(matchToolRule(rules, call('x', 'run_command', { command: 'format disk' }))).toBeUndefined();
    expect(matchToolRule(rules, call('x', 'run_command', {}))).toBeUndefined();
    expect(matchToolRule(rules, call('x', 'write_file'))?.rule.action).toBe('ask');
  });

  test('allow reads, ask for writes, deny run_command with rm — through a batch', async () => {
    const d = deps([
      call('c1', 'read_file', { path: 'a' }),
      call('c2', 'run_command', { command: 'rm -rf /' }),
      call('c3', 'write_file', { path: 'b' }),
      call('c4', 'run_command', { command: 'ls' }),
    ]);
    const agent = await started({ toolRules: rules, approval: { read_file: 'always' } }, d);
    await settle(agent, d);
    expect(agent.waits().map((w) => [w.toolCallId, w.reason])).toEqual([['c3', "the agent's rule 3 (ask write_*) asks a person first"]]);
    agent.answerWait({ waitId: agent.waits()[0].waitId, answer: { approved: true }, door: 'cli' });
    const results = (await settle(agent, d))!.results;
    expect(results.map((r) => r.status)).toEqual(['Success', 'Skipped', 'Success', 'Success']);
    expect(results[1].result).toBe(
      "The agent's rule 2 (deny run_command command~rm (no deletions)) denies this call: no deletions. Do not retry it unchanged.",
    );
    expect(d.ran).toEqual(['read_file {"path":"a"}', 'write_file {"path":"b"}', 'run_command {"command":"ls"}']);
  });

  test('set at run time and "don\'t ask again" are tool_rules entries; the remembered allow holds for the next call', async () => {
    const d = deps([call('c1', 'write_file')], [call('c2', 'write_file')]);
    const agent = await started({}, d);
    const set = agent.setToolRules({ rules: [{ tool: 'write_*', action: 'ask' }], by: 'ana' });
    expect(agent.state.entries.at(-1)).toMatchObject({ kind: 'tool_rules', seq: set.seq, change: 'set', by: 'ana', rules: [{ tool: 'write_*' }] });
    await settle(agent, d);
    agent.answerWait({ waitId: agent.waits()[0].waitId, answer: { approved: true, remember: true }, door: 'page', by: 'ana' });
    expect(agent.state.entries.at(-1)).toMatchObject({
      kind: 'tool_rules',
      change: 'remember',
      rules: [{ tool: 'write_file', action: 'allow' }, { tool: 'write_*' }],
    });
    await settle(agent, d);
    expect(agent.waits()).toEqual([]);
    expect(agent.runState).toBe('WaitingInput');
    expect(agent.config.toolRules).toHaveLength(2);
    // Carried in the snapshot (continue-as-new, export, fork).
    expect(Agent.fromSnapshot(agent.toSnapshot(), tickingClock()).config.toolRules).toEqual(agent.config.toolRules);
    expect(() => agent.setToolRules({ rules: [{ tool: 'x', action: 'maybe' }] })).toThrow(/^Tool rules are/);
  });
});
