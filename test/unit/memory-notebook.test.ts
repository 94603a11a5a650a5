import fc from 'fast-check';
import {
  Agent,
  AgentState,
  MemoryNotebookWidget,
  type ModelCallResult,
  NOTEBOOK_CAP_CHANGE,
  NOTEBOOK_MAX_CHARS,
  NOTEBOOK_PLACEHOLDER,
  applyNotebookReplace,
  buildLiveScreen,
  rebuildNotebook,
  type StepDeps,
} from '../../agent/index';

describe('memory_notebook_replace', () => {
  test('empty old_text appends', () => {
    const edit = applyNotebookReplace('a', { old_text: '', new_text: 'b' });
    expect(edit).toMatchObject({ ok: true, content: 'ab', metadata: { operation: 'append', length_before: 1, length_after: 2, length_delta: 1 } });
  });

  test('replaces the first occurrence only', () => {
    expect(applyNotebookReplace('x y x', { old_text: 'x', new_text: 'z' })).toMatchObject({ ok: true, content: 'z y x', metadata: { match_index: 0 } });
  });

  test('search_after anchors the search after its first occurrence', () => {
    const edit = applyNotebookReplace('tea: x\ncoffee: x', { old_text: 'x', new_text: 'yes', search_after: 'coffee' });
    expect(edit).toMatchObject({ ok: true, content: 'tea: x\ncoffee: yes', metadata: { anchor_hit: true } });
  });

  test('old_text or search_after not found: Failed, notebook unchanged', () => {
    const w = new MemoryNotebookWidget('hello');
    expect(w.executeTool('memory_notebook_replace', { old_text: 'nope', new_text: 'x' })).toMatchObject({
      status: 'Failed',
      result: expect.stringMatching(/old_text not found/),
    });
    expect(w.executeTool('memory_notebook_replace', { old_text: 'hello', new_text: 'x', search_after: 'zzz' })).toMatchObject({
      status: 'Failed',
      metadata: { anchor_hit: false },
    });
    expect(w.content).toBe('hello');
  });

  test('arguments are validated strictly', () => {
    const w = new MemoryNotebookWidget();
    expect(w.executeTool('memory_notebook_replace', { old_text: 1 })).toMatchObject({ status: 'Failed', result: expect.stringMatching(/Invalid arguments/) });
    expect(w.executeTool('memory_notebook_replace', { old_text: '', new_text: 'x', extra: true })).toMatchObject({ status: 'Failed' });
  });

  test('LiveScreen: "# [Live Screen]" then "## Memory Notebook", with a placeholder when empty', () => {
    expect(buildLiveScreen([new MemoryNotebookWidget()])).toBe(`# [Live Screen]\n\n## Memory Notebook\n\n${NOTEBOOK_PLACEHOLDER}`);
    expect(buildLiveScreen([new MemoryNotebookWidget('- likes tea')])).toBe('# [Live Screen]\n\n## Memory Notebook\n\n- likes tea');
  });
});

describe('the notebook in the agent', () => {
  const invocation = { providerId: 'p', specification: 's', model: 'm' };
  const clock = () => 0;

  test('runs inside doStep (no executeTool), and history alone rebuilds it — for any sequence of edits', async () => {
    const edit = fc.record({
      old_text: fc.oneof(fc.constant(''), fc.constantFrom('a', 'b', 'ab', 'zz')),
      new_text: fc.constantFrom('', 'a', 'b', 'ab\n'),
      search_after: fc.option(fc.constantFrom('a', 'b', 'q'), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(edit, { minLength: 1, maxLength: 3 }), { maxLength: 6 }), async (batches) => {
        const agent = Agent.create({ config: { model: 'p:m' }, clock });
        const outputs: ModelCallResult[] = batches.map((batch, b) => ({
          contents: [],
          toolCalls: batch.map((args, i) => ({
            toolName: 'memory_notebook_replace',
            toolCallId: `c${b}_${i}`,
            rawArguments: JSON.stringify(args),
            arguments: JSON.parse(JSON.stringify(args)),
          })),
          invocation,
        }));
        outputs.push({ contents: ['done'], toolCalls: [], invocation });
        const deps: StepDeps = {
          callModel: async () => outputs.shift()!,
          executeTool: async () => {
            throw new Error('widget tools must not become activities');
          },
        };
        agent.enqueueInput({ text: 'go' });
        while ((await agent.doStep(deps)) === 'ProgressMade');
        expect(rebuildNotebook(agent.state.entries)).toBe(agent.notebook.content);
        const restored = Agent.fromSnapshot(JSON.parse(JSON.stringify(agent.toSnapshot())), clock);
        expect(restored.notebook.content).toBe(agent.notebook.content);
      }),
      { numRuns: 60 },
    );
  });

  test("the model's notebook stays bounded: an edit past the bound fails and changes nothing; older histories replay as they ran", async () => {
    const run = async (since?: (change: string) => boolean) => {
      const agent = Agent.create({ config: { model: 'p:m' }, clock });
      const call = (id: string, args: Record<string, string>) => ({
        toolName: 'memory_notebook_replace',
        toolCallId: id,
        rawArguments: JSON.stringify(args),
        arguments: args,
      });
      const big = 'n'.repeat(NOTEBOOK_MAX_CHARS - 10);
      const outputs: ModelCallResult[] = [
        { contents: [], toolCalls: [call('a', { old_text: '', new_text: big })], invocation },
        { contents: [], toolCalls: [call('b', { old_text: '', new_text: 'x'.repeat(20) })], invocation },
        { contents: [], toolCalls: [call('c', { old_text: 'n'.repeat(100), new_text: 'short' })], invocation },
        { contents: ['done'], toolCalls: [], invocation },
      ];
      const asked: string[] = [];
      const deps: StepDeps = {
        callModel: async () => outputs.shift()!,
        executeTool: async () => {
          throw new Error('widget tools must not become activities');
        },
        ...(since ? { since: (change: string) => (asked.push(change), since(change)) } : {}),
      };
      agent.enqueueInput({ text: 'go' });
      while ((await agent.doStep(deps)) === 'ProgressMade');
      return { agent, asked };
    };
    const { agent } = await run();
    const results = agent.state.entries.flatMap((e) => (e.kind === 'tool_results' ? e.results : []));
    expect(results.map((r) => r.status)).toEqual(['Success', 'Failed', 'Success']); // a shrinking edit is always allowed
    expect(results[1].result).toMatch(/at most 65536 .*make room first/);
    expect(agent.notebook.content.length).toBe(NOTEBOOK_MAX_CHARS - 10 - 100 + 5);
    expect(rebuildNotebook(agent.state.entries)).toBe(agent.notebook.content);
    // A history recorded before the bound (the patch not taken) ran the edit, and replays so.
    const old = await run(() => false);
    expect(old.asked).toEqual([NOTEBOOK_CAP_CHANGE]);
    expect(old.agent.notebook.content.length).toBe(NOTEBOOK_MAX_CHARS + 10 - 100 + 5);
    expect(rebuildNotebook(old.agent.state.entries)).toBe(old.agent.notebook.content);
  });

  test('an agent limited to other tools does not run the notebook tool in the workflow', async () => {
    const agent = Agent.create({ config: { model: 'p:m', tools: ['write_file'] }, clock });
    const ran: string[] = [];
    const outputs = [
      { contents: [], toolCalls: [{ toolName: 'memory_notebook_replace', toolCallId: 'c', rawArguments: '{}', arguments: {} }], invocation },
      { contents: ['ok'], toolCalls: [], invocation },
    ];
    const deps: StepDeps = {
      callModel: async () => outputs.shift()!,
      executeTool: async (call) => {
        ran.push(call.toolName);
        return { toolCallId: call.toolCallId, toolName: call.toolName, status: 'Failed', result: 'Unknown tool' };
      },
    };
    agent.enqueueInput({ text: 'go' });
    while ((await agent.doStep(deps)) === 'ProgressMade');
    expect(ran).toEqual(['memory_notebook_replace']);
    expect(agent.notebook.content).toBe('');
  });

  test('tool metadata over the limit is left out with a note, never failing the step', async () => {
    const agent = Agent.create({ config: { model: 'p:m' }, clock });
    const outputs = [
      { contents: [], toolCalls: [{ toolName: 't', toolCallId: 'c', rawArguments: '{}', arguments: {} }], invocation },
      { contents: ['ok'], toolCalls: [], invocation },
    ];
    const deps: StepDeps = {
      callModel: async () => outputs.shift()!,
      executeTool: async (call) => ({ toolCallId: call.toolCallId, toolName: 't', status: 'Success', result: 'r', metadata: { huge: 'x'.repeat(5000) } }),
    };
    agent.enqueueInput({ text: 'go' });
    while ((await agent.doStep(deps)) === 'ProgressMade');
    const results = agent.state.entries.find((e) => e.kind === 'tool_results');
    expect(results).toMatchObject({ results: [{ status: 'Success', metadata: { metadata_dropped: expect.stringMatching(/limit is 2048/) } }] });
    expect(new AgentState(clock).entries).toHaveLength(0);
  });
});
