/**
 * Issue 26 item B: a typed answer's schema may hold regular expressions (`pattern`), which run on the
 * worker against what the model wrote. A catastrophic one is refused at the door (AgentClient, so the
 * gateway and the CLI too) with a clear error and nothing sent; one that gets past the door is checked in
 * a thread with a time limit, so another agent's turn on the same worker completes meanwhile, and the
 * agent whose answer could not be checked blocks on an error that says why.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { InputRejectedError } from '../../agent/index';
import { TypedAnswerError } from '../../client/typed-answer';
import { cli } from '../support/cli';
import { startTestGateway } from '../support/gateway';
import { useProviderServers } from '../support/provider-servers';
import { eventually, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('typed-patterns', { each: true });
const OPENAI = 'openai:gpt-4.1-mini';
const ANTHROPIC = 'anthropic:claude-sonnet-4-6';

test("the issue's schema class, ^(a+)+$, is refused at the door: the client, the gateway (400) and the CLI; nothing reaches the agent", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'patterns-'));
  const file = path.join(dir, 'code.json');
  writeFileSync(file, JSON.stringify({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } }));
  const gw = await startTestGateway(t.agents);
  try {
    await withWorker({ taskQueue, models: p.models() }, async () => {
      const agentId = uniqueId('door');
      await t.agents.start(agentId, { model: OPENAI });
      const refused = await t.agents.ask(agentId, 'A code?', { schema: z.object({ code: z.string().regex(/^(a+)+$/) }) }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(InputRejectedError);
      expect(refused).toMatchObject({ code: 'UNSAFE_PATTERN', message: expect.stringContaining('"^(a+)+$" can backtrack catastrophically') });

      const body = { text: 'A code?', responseSchema: { schema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } } } };
      const viaGateway = await gw.request('POST', `/agents/${agentId}/input`, body);
      expect(viaGateway).toMatchObject({
        status: 400,
        body: { error: { code: 'UNSAFE_PATTERN', message: expect.stringContaining('can backtrack catastrophically') } },
      });

      const viaCli = await cli(['send', agentId, '--schema', file, 'A code?'], { env: { LIVECONTEXT_TASK_QUEUE: taskQueue } });
      expect(viaCli).toMatchObject({
        code: 2,
        stderr: expect.stringContaining(`The schema ${file} cannot be used: The response schema's pattern "^(a+)+$" can backtrack catastrophically`),
      });

      expect(p.openai.requests).toHaveLength(0);
      expect((await t.agents.history(agentId)).filter((e) => e.kind === 'model_input')).toHaveLength(0);
    });
  } finally {
    await gw.close();
  }
});

test('a catastrophic pattern that gets past the door cannot block another agent: its turn completes while the check runs, bounded', async () => {
  const limit = process.env.LIVECONTEXT_SCHEMA_CHECK_MS;
  process.env.LIVECONTEXT_SCHEMA_CHECK_MS = '15000';
  let streamed = false;
  try {
    await withWorker(
      {
        taskQueue,
        models: p.models(),
        // Sees the slow agent's answer finish streaming: from there on its check runs.
        observeModelStream: (delta, call) => {
          if (delta.kind === 'done' && call.agentId.startsWith('slow')) streamed = true;
        },
      },
      async () => {
        const slow = uniqueId('slow');
        const other = uniqueId('other');
        await t.agents.start(slow, { model: OPENAI });
        await t.agents.start(other, { model: ANTHROPIC });
        // (a|a)+ backtracks exponentially on "aaaa…!" and is not what the door looks for (a schema from
        // an older client, another SDK or a raw signal would not meet the door at all).
        const Code = z.object({ code: z.string().regex(/^(a|a)+$/) });
        p.openai.enqueue({ kind: 'stream', text: JSON.stringify({ code: `${'a'.repeat(40)}!` }) });
        const slowTurn = t.agents.ask(slow, 'A code?', { schema: Code }).catch((e: unknown) => e);
        await eventually(() => streamed, 30_000, "the slow agent's answer to finish streaming");

        // Its check is running: on the worker's event loop it would hold this turn for minutes.
        p.anthropic.enqueue({ kind: 'stream', text: 'Hello there.' });
        expect(await t.agents.ask(other, 'Hi?')).toMatchObject({ status: 'answered', answer: { contents: ['Hello there.'] } });
        // The slow agent's check was still running then: on the event loop it would have ended first, and
        // the answer that does not match would have been re-asked (a second request) before this turn ended.
        expect(p.openai.requests).toHaveLength(1);
        expect((await t.agents.state(slow)).lastError ?? undefined).toBeUndefined();

        const error = await slowTurn;
        expect(error).toBeInstanceOf(TypedAnswerError);
        expect((error as Error).message).toContain(
          'could not be checked against the input\'s response schema: checking the answer against the schema\'s patterns ("^(a|a)+$") took over 15000 ms, so it was stopped',
        );
        expect(await t.agents.state(slow)).toMatchObject({ runState: 'PendingInput', lastError: { code: 'ModelError.InvalidStructuredOutput' } });
        expect(p.openai.requests).toHaveLength(1); // not re-asked, not retried: the check, not the answer, failed
      },
    );
  } finally {
    if (limit === undefined) delete process.env.LIVECONTEXT_SCHEMA_CHECK_MS;
    else process.env.LIVECONTEXT_SCHEMA_CHECK_MS = limit;
  }
});
