/**
 * Streaming to clients: while a model call runs, a client sees the partial output grow (read from the
 * activity's heartbeat details through describe), and none of it enters workflow history.
 */
import { type PartialOutput } from '../../activities/index';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('streaming');

/** Collects the partial outputs a client sees until the answer to `inputSeq` arrives. */
async function watchUntilAnswered(agentId: string, inputSeq: number) {
  const seen: PartialOutput[] = [];
  const stop = new AbortController();
  const watching = (async () => {
    for await (const partial of t.agents.streamPartial(agentId, { intervalMs: 100, signal: stop.signal })) seen.push(partial);
  })();
  const outcome = await t.agents.waitForAnswer(agentId, inputSeq);
  stop.abort();
  await watching;
  return { outcome, seen };
}

test('partial text is visible before the call ends; history holds only the final message', async () => {
  const final = Array.from({ length: 24 }, (_, i) => `word${i}`).join(' ');
  p.openai.enqueue({ kind: 'stream', text: final, chunkDelayMs: 120 });
  const agentId = uniqueId('stream');
  await withWorker({ taskQueue, models: p.models() }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    const { inputSeq } = await t.agents.send(agentId, 'talk to me');
    const { outcome, seen } = await watchUntilAnswered(agentId, inputSeq);
    expect(outcome).toMatchObject({ status: 'answered', answer: { contents: [final] } });

    const texts = seen.map((s) => s.text).filter((x) => x.length > 0);
    expect(texts.length).toBeGreaterThanOrEqual(3); // it grew in several visible steps
    for (const text of texts) expect(final.startsWith(text)).toBe(true);
    expect(texts.some((x) => x.length < final.length)).toBe(true);
    expect(seen.every((s) => s.attempt === 1 && s.model === 'openai:gpt-4.1-mini')).toBe(true);

    // No streaming in history: 24 chunks, yet the call is one scheduled/started/completed activity.
    const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(1);
    expect(events.filter((e) => e.activityTaskStartedEventAttributes)).toHaveLength(1);
    expect(events.filter((e) => e.activityTaskCompletedEventAttributes)).toHaveLength(1);
    expect(events.length).toBeLessThan(30);
    expect(await t.agents.partialOutput(agentId)).toBeNull();
  });
});

test('a retried call restarts the partial view', async () => {
  const final = Array.from({ length: 16 }, (_, i) => `fresh${i}`).join(' ');
  // Attempt 1 sends one chunk and stalls (stall timeout 1.2 s); attempt 2 streams the answer.
  p.anthropic.enqueue({ kind: 'stream', text: 'stale stale stale', chunkDelayMs: 1500 }, { kind: 'stream', text: final, chunkDelayMs: 120 });
  const agentId = uniqueId('restart');
  await withWorker({ taskQueue, models: p.models(), liveness: { firstTokenTimeoutMs: 8000, stallTimeoutMs: 1200 } }, async () => {
    await t.agents.start(agentId, { model: 'anthropic:claude-sonnet-4-6' });
    const { inputSeq } = await t.agents.send(agentId, 'go');
    const { outcome, seen } = await watchUntilAnswered(agentId, inputSeq);
    expect(outcome).toMatchObject({ status: 'answered', answer: { contents: [final] } });
    expect(seen.some((s) => s.attempt === 1 && s.text.startsWith('stale'))).toBe(true);
    const second = seen.filter((s) => s.attempt === 2);
    expect(second.length).toBeGreaterThan(0);
    for (const s of second) {
      expect(s.text).not.toContain('stale');
      expect(final.startsWith(s.text)).toBe(true);
    }
  });
});
