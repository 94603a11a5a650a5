/**
 * Compaction through the providers' wire fakes: an agent whose small context window fills summarises its
 * oldest turns (one summary call, whose request is the compaction instruction; one compaction entry),
 * and the requests after it hold the summary right after the system prompt — the same bytes at every
 * call, so the provider's prompt cache keeps it — then the recent turns, no tool call without its
 * result. The OpenAI agent continues as new at every turn, so the compaction also crosses runs.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { type CompactionEntry, type HistoryEntry, summaryText } from '../../agent/index';
import { maybeRecordHistory } from '../support/record-history';
import {
  SMALL_WINDOW,
  SUMMARY,
  anthropicScript,
  isAnthropicSummaryCall,
  isOpenAISummaryCall,
  lookupTool,
  openaiOrphans,
  openaiScript,
  turnText,
} from '../support/compaction-script';
import { useProviderServers } from '../support/provider-servers';
import { type TestContext, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('compaction', { each: true });

/** Turns until the first compaction is recorded, then `after` more; the history at the end. */
async function turnsUntilCompacted(agentId: string, after: number): Promise<HistoryEntry[]> {
  let k = 1;
  for (; k <= 20; k++) {
    expect(await t.agents.ask(agentId, turnText(k))).toMatchObject({ status: 'answered' });
    if ((await t.agents.history(agentId)).some((e) => e.kind === 'compaction')) break;
  }
  expect(k).toBeLessThanOrEqual(20);
  for (let i = 1; i <= after; i++) expect(await t.agents.ask(agentId, turnText(k + i))).toMatchObject({ status: 'answered' });
  return t.agents.history(agentId);
}

/** The agent's runs, oldest first. */
async function runsOf(c: TestContext, agentId: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const wf of c.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) runs.push(wf.runId);
  return runs.reverse();
}

async function scheduled(handle: WorkflowHandle, activity: string): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity).length;
}

test('an OpenAI agent whose window fills compacts once, and later requests hold the summary and the recent turns, across runs', async () => {
  p.openai.respond = openaiScript;
  const agentId = uniqueId('compact-openai');
  await withWorker({ taskQueue, tools: [lookupTool], models: p.models() }, async () => {
    await t.agents.start(agentId, {
      model: 'openai:gpt-4.1-mini',
      tools: ['lookup'],
      // The fake counts JSON bytes / 4, about twice what the tokenizer counts, so calls calibrate to twice: a
      // larger window keeps the next compaction a few turns away.
      contextWindow: 4 * SMALL_WINDOW,
      systemInstruction: 'You are a test agent.',
      historyBudgetBytes: 4_000, // a new run after every turn
    });
    const history = await turnsUntilCompacted(agentId, 2);

    const compactions = history.filter((e): e is CompactionEntry => e.kind === 'compaction');
    expect(compactions).toHaveLength(1);
    const [compaction] = compactions;
    expect(compaction).toMatchObject({ summary: SUMMARY, invocation: { providerId: 'openai', model: 'gpt-4.1-mini' } });
    const summaryCalls = p.openai.requests.filter(isOpenAISummaryCall);
    expect(summaryCalls).toHaveLength(1);
    // The summary call was sent the conversation it summarises, and no tools.
    const told = JSON.stringify(summaryCalls[0].body.messages[1]);
    expect(told).toContain('Turn 1: remember the number 1001');
    expect(summaryCalls[0].body.tools).toBeUndefined();

    // The cut is at a boundary: the entry it covers through is not a call waiting for its results.
    const cutAt = history.filter((e) => e.seq <= compaction.throughSeq && e.kind !== 'compaction').pop()!;
    expect(cutAt.kind === 'model_output' && cutAt.toolCalls.length > 0).toBe(false);

    // Every request after the summary call: system, then the summary (the same bytes each time), then recent turns only.
    const after = p.openai.requests.slice(p.openai.requests.indexOf(summaryCalls[0]) + 1);
    expect(after.length).toBeGreaterThanOrEqual(4);
    const summaryMessage = { role: 'user', content: summaryText({ kind: 'summary', summary: SUMMARY, throughSeq: compaction.throughSeq }) };
    for (const r of after) {
      const messages = r.body.messages;
      expect(messages[0]).toEqual({ role: 'system', content: 'You are a test agent.' });
      expect(messages[1]).toEqual(summaryMessage);
      expect(JSON.stringify(messages)).not.toContain('Turn 1: remember');
      expect(openaiOrphans(messages)).toEqual([]);
    }
    const newest = after[after.length - 1].body.messages;
    expect(JSON.stringify(newest)).toContain(turnText(history.filter((e) => e.kind === 'model_input').length).slice(0, 40));

    // Recorded once, and carried across the runs that followed (one run per turn).
    const runs = await runsOf(t, agentId);
    const withCompaction = [];
    for (const runId of runs) if ((await scheduled(t.client.workflow.getHandle(agentId, runId), 'compactContext')) > 0) withCompaction.push(runId);
    expect(withCompaction).toHaveLength(1);
    expect(runs.indexOf(withCompaction[0])).toBeLessThan(runs.length - 1);
    await maybeRecordHistory(t.client.workflow.getHandle(agentId, withCompaction[0]), 'compaction_v1.json');
  });
});

test('an Anthropic agent compacts once, with a cache breakpoint after the summary that later calls read back', async () => {
  p.anthropic.respond = anthropicScript;
  const agentId = uniqueId('compact-anthropic');
  await withWorker({ taskQueue, tools: [lookupTool], models: p.models() }, async () => {
    await t.agents.start(agentId, {
      model: 'anthropic:claude-sonnet-4-6',
      tools: ['lookup'],
      contextWindow: SMALL_WINDOW,
      systemInstruction: 'You are a test agent.',
      context: { compactAt: 0.8, cacheTtl: '1h' },
    });
    const history = await turnsUntilCompacted(agentId, 1);
    const compactions = history.filter((e): e is CompactionEntry => e.kind === 'compaction');
    expect(compactions).toHaveLength(1);
    const summaryCalls = p.anthropic.requests.filter(isAnthropicSummaryCall);
    expect(summaryCalls).toHaveLength(1);

    const after = p.anthropic.requests.slice(p.anthropic.requests.indexOf(summaryCalls[0]) + 1);
    expect(after.length).toBeGreaterThanOrEqual(2);
    const text = summaryText({ kind: 'summary', summary: SUMMARY, throughSeq: compactions[0].throughSeq });
    for (const r of after) {
      const first = r.body.messages[0];
      expect(first.role).toBe('user');
      // The summary's own block, marked: the prefix up to it is cached for an hour.
      expect(first.content[0]).toEqual({ type: 'text', text, cache_control: { type: 'ephemeral', ttl: '1h' } });
      expect(JSON.stringify(r.body.messages)).not.toContain('Turn 1: remember');
    }
    // The calls after the first one after the compaction read the summary's prefix from the cache.
    const state = await t.agents.state(agentId);
    expect(state.usage.cachedInputTokens).toBeGreaterThan(0);
    expect(state.usage.cacheHitRatio).toBeGreaterThan(0);
    expect(state.usage.cacheHitRatio).toBeLessThanOrEqual(1);
  });
});
