/**
 * Boundary fuzz on a real dev server: random and malformed signal and update payloads (undecodable
 * encodings included), provider streams (odd ids, missing or fractional usage, empty outputs, huge
 * single tokens), tool arguments and outputs, and snapshots. After each: the agent answers queries and
 * takes the next input; in the end it has continued as new, and export → import round-trips. Nothing
 * stuck, nothing dead. (The pure core gets many more runs in agent-core.test.ts.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import fc from 'fast-check';
import { z } from 'zod';
import { ScriptedModelProvider, type ScriptStep, defineTool } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import { type AgentSnapshot, unwrap } from '../../agent/index';
import {
  configureSignal,
  configureUpdate,
  decideToolCallSignal,
  decideToolCallUpdate,
  inputSignal,
  sendInputUpdate,
  waitForAnswerUpdate,
} from '../../workflows/messages';
import { recordTool } from '../fixtures/test-tools';
import { useProviderServers } from '../support/provider-servers';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { anyJson, oddOpenAIUsage, oddText, oddToolOutput, rawArguments, toolNames } from './arbitraries';

const { t, p, taskQueue } = useProviderServers('fuzz');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-fuzz-ws-'));

/** Tool plans the scripted model plays, and outputs the `odd` tool returns, set by each fuzz run. */
const plans: Array<Array<{ name: string; args: string }>> = [];
type OddOutput = typeof oddToolOutput extends fc.Arbitrary<infer T> ? T : never;
const oddOutputs: OddOutput[] = [];
const oddTool = defineTool({
  name: 'odd',
  description: 'Returns whatever the fuzz run chose.',
  parameters: z.object({}).passthrough(),
  execute() {
    const o = oddOutputs.shift() ?? { kind: 'text' as const, text: 'nothing planned' };
    if (o.kind === 'text') return o.text;
    if (o.kind === 'object') return o.value as never;
    if (o.kind === 'undefined') return undefined as never;
    if (o.kind === 'number') return 42 as never;
    throw new Error('the odd tool threw');
  },
});
const scripted = new ScriptedModelProvider({
  fuzz: (req): ScriptStep => {
    const last = unwrap(req.messages[req.messages.length - 1]);
    if (last.kind === 'model_input') {
      const plan = plans.shift();
      if (plan?.length) return { toolCalls: plan };
      return { text: `echo: ${last.sections.map((s) => s.content.slice(0, 50)).join(' / ')}` };
    }
    return { text: 'tools done' };
  },
});

const worker = (fn: () => Promise<void>) => withWorker({ taskQueue, workspaceRoot, tools: [recordTool, oddTool], models: [...p.models(), scripted] }, fn);

/** The agent is alive: it answers a query, takes the next input and answers it. */
async function expectAlive(agents: AgentClient, agentId: string, tag: string) {
  const state = await agents.state(agentId);
  if (state.lastError) await agents.retry(agentId); // a recorded error is fine; a stuck agent is not
  const outcome = await agents.ask(agentId, `alive? ${tag}`);
  expect(['answered', 'error']).toContain(outcome.status);
  if (outcome.status === 'error') {
    await agents.retry(agentId);
    await expect(agents.ask(agentId, `alive again? ${tag}`)).resolves.toMatchObject({ status: 'answered' });
  }
}

/** Asks `text` until the agent has continued as new (long answers push its small history budget). */
async function askUntilContinued(agentId: string, text: string) {
  await eventually(
    async () => {
      await t.agents.ask(agentId, text);
      const runs: string[] = [];
      for await (const wf of t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) runs.push(wf.runId);
      return runs.length > 1;
    },
    60_000,
    'a continue-as-new',
  );
}

/** It continued as new at least once, and its export imports into an agent that answers. */
async function expectCarriedAndPortable(agentId: string) {
  const runs: string[] = [];
  for await (const wf of t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) runs.push(wf.runId);
  expect(runs.length).toBeGreaterThan(1);
  expect((await t.agents.handle(agentId).describe()).status.name).toBe('RUNNING');
  const snapshot = JSON.parse(JSON.stringify(await t.agents.snapshot(agentId))) as AgentSnapshot;
  const copy = `${agentId}-copy`;
  await t.agents.restore(copy, snapshot);
  await expectAlive(t.agents, copy, 'copy');
  const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
  expect(events.some((e) => e.workflowTaskFailedEventAttributes)).toBe(false);
}

/** A client whose next payload is replaced by `raw` (any encoding, any bytes). */
function rawSender() {
  let next: Payload | undefined;
  const client = new Client({
    connection: t.connection,
    dataConverter: {
      payloadCodecs: [
        {
          async encode(payloads: Payload[]) {
            return next ? payloads.map(() => next!) : payloads;
          },
          async decode(payloads: Payload[]) {
            return payloads;
          },
        },
      ],
    },
  });
  return { agents: new AgentClient(client, taskQueue), set: (raw: Payload | undefined) => (next = raw) };
}

const rawPayload = fc.record({
  encoding: fc.oneof(
    fc.constantFrom('json/plain', 'binary/plain', 'binary/null', 'binary/encrypted', 'livecontext/blob-ref', 'json/protobuf', 'binary/foo', ''),
    fc.string({ maxLength: 12 }),
  ),
  data: fc.oneof(
    anyJson.map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 40 }),
    fc.constant('{"key":"' + 'a'.repeat(64) + '"}'),
  ),
});
const message = fc.constantFrom('input', 'configure', 'decideToolCall', 'sendInput', 'configureUpdate', 'decideToolCallUpdate', 'waitForAnswer');
const senderCase = fc.record({
  message,
  raw: fc.oneof(
    rawPayload.map((r) => ({ payload: r })),
    anyJson.map((value) => ({ value })),
  ),
});

test('random and undecodable signal and update payloads never stall or kill the agent', async () => {
  const agentId = uniqueId('fuzz-senders');
  const sender = rawSender();
  await worker(async () => {
    await t.agents.start(agentId, { model: 'scripted:fuzz', historyBudgetBytes: 30_000 });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(senderCase, { minLength: 1, maxLength: 4 }), async (cases) => {
        run++;
        for (const c of cases) {
          sender.set(
            'payload' in c.raw
              ? { metadata: { encoding: new TextEncoder().encode(c.raw.payload.encoding) }, data: new TextEncoder().encode(c.raw.payload.data) }
              : undefined,
          );
          const value = 'value' in c.raw ? c.raw.value : {};
          const handle = sender.agents.handle(agentId);
          const send = async () => {
            switch (c.message) {
              case 'input':
                return handle.signal(inputSignal, value as never);
              case 'configure':
                return handle.signal(configureSignal, value as never);
              case 'decideToolCall':
                return handle.signal(decideToolCallSignal, value as never);
              case 'sendInput':
                return handle.executeUpdate(sendInputUpdate, { args: [value as never] });
              case 'configureUpdate':
                return handle.executeUpdate(configureUpdate, { args: [value as never] });
              case 'decideToolCallUpdate':
                return handle.executeUpdate(decideToolCallUpdate, { args: [value as never] });
              case 'waitForAnswer':
                return handle.executeUpdate(waitForAnswerUpdate, { args: [value as never] });
            }
          };
          // An update may be refused (that is its answer) or accepted; it must answer either way.
          await Promise.race([send().catch(() => undefined), new Promise((_r, reject) => setTimeout(() => reject(new Error(`${c.message} hung`)), 20_000))]);
        }
        sender.set(undefined);
        await expectAlive(t.agents, agentId, `senders ${run}`);
      }),
      { numRuns: 25 },
    );
    // A burst of long answers pushes the small history budget: the agent continues as new.
    await askUntilContinued(agentId, 'x'.repeat(8_000));
    await expectCarriedAndPortable(agentId);
  });
}, 300_000);

const openaiStream = fc.record({
  text: fc.option(oddText, { nil: undefined }),
  toolCalls: fc.array(
    fc.record({
      id: fc.oneof(fc.constantFrom('', 'call_same', 'call_same'), fc.string({ maxLength: 10 })),
      name: fc.constantFrom(...toolNames.filter(Boolean), 'odd'),
      arguments: rawArguments,
    }),
    { maxLength: 3 },
  ),
  finishReason: fc.constantFrom(undefined, 'stop', 'tool_calls', 'length', 'content_filter'),
  rawUsage: oddOpenAIUsage,
});

test('odd OpenAI-compatible streams and odd tool outputs never make a state the next run refuses', async () => {
  const agentId = uniqueId('fuzz-streams');
  await worker(async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', historyBudgetBytes: 30_000, parallelTools: false });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(openaiStream, fc.array(oddToolOutput, { maxLength: 3 }), async (stream, outputs) => {
        run++;
        oddOutputs.push(...outputs);
        p.openai.enqueue({ kind: 'stream', ...stream, ...(stream.rawUsage ? { rawUsage: stream.rawUsage as Record<string, unknown> } : {}) });
        p.openai.respond = () => ({ kind: 'stream', text: 'plain answer' });
        const { inputSeq } = await t.agents.send(agentId, `odd stream ${run}`);
        const outcome = await t.agents.waitForAnswer(agentId, inputSeq);
        expect(['answered', 'error']).toContain(outcome.status);
        oddOutputs.length = 0;
        await expectAlive(t.agents, agentId, `streams ${run}`);
      }),
      { numRuns: 20 },
    );
    p.openai.respond = () => ({ kind: 'stream', text: 'y'.repeat(12_000) }); // long answers: on to a new run
    await askUntilContinued(agentId, 'long please');
    await expectCarriedAndPortable(agentId);
    p.openai.respond = undefined;
  });
}, 300_000);

test('random tool arguments never stall the agent', async () => {
  const agentId = uniqueId('fuzz-tools');
  await worker(async () => {
    await t.agents.start(agentId, { model: 'scripted:fuzz', historyBudgetBytes: 30_000 });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: fc.constantFrom(...toolNames.filter(Boolean), 'odd'), args: rawArguments }), { minLength: 1, maxLength: 3 }),
        fc.array(oddToolOutput, { maxLength: 3 }),
        async (plan, outputs) => {
          run++;
          // Timers are kept short: a valid sleep would otherwise wait its whole time.
          plans.push(
            plan.map((c) =>
              c.name === 'sleep'
                ? { ...c, args: '{"seconds": 0.01}' }
                : c.name === 'wait_until' && !/275760|not a date/.test(c.args)
                  ? { ...c, args: '{"time": "2020-01-01T00:00:00Z"}' }
                  : c,
            ),
          );
          oddOutputs.push(...outputs);
          await expect(t.agents.ask(agentId, `tools ${run}`)).resolves.toMatchObject({ status: 'answered' });
          oddOutputs.length = 0;
          await expectAlive(t.agents, agentId, `tools ${run}`);
        },
      ),
      { numRuns: 20 },
    );
    await askUntilContinued(agentId, 'x'.repeat(8_000));
    await expectCarriedAndPortable(agentId);
  });
}, 300_000);

test('a mutated snapshot is refused before anything starts, or imports into an agent that works', async () => {
  const agentId = uniqueId('fuzz-snapshots');
  await worker(async () => {
    await t.agents.start(agentId, { model: 'scripted:fuzz' });
    plans.push([{ name: 'record', args: '{"label":"x"}' }]);
    await t.agents.ask(agentId, 'one');
    await t.agents.ask(agentId, 'two');
    const base = JSON.parse(JSON.stringify(await t.agents.snapshot(agentId))) as Record<string, unknown>;
    const keys = Object.keys(base);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...keys), anyJson, fc.nat(5), async (key, value, entryIndex) => {
        run++;
        const mutated = JSON.parse(JSON.stringify(base));
        if (key === 'entries' && Array.isArray(mutated.entries) && mutated.entries.length) {
          const i = entryIndex % mutated.entries.length;
          const fields = Object.keys(mutated.entries[i]);
          mutated.entries[i][fields[entryIndex % fields.length]] = value;
        } else {
          mutated[key] = value;
        }
        const copy = `${agentId}-m${run}`;
        const started = await t.agents.restore(copy, mutated).then(
          () => true,
          (err: Error) => {
            expect(err.message).toMatch(/snapshot/i); // refused with the reason, before starting
            return false;
          },
        );
        if (started) await expectAlive(t.agents, copy, `snapshot ${run}`);
      }),
      { numRuns: 25 },
    );
  });
}, 300_000);
