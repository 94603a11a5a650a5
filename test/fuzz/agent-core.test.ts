/**
 * Boundary fuzz of the pure agent core: whatever the model returns, whatever tools return, whatever
 * senders send (input, decisions, configuration), the agent never throws out of a step, and what it
 * holds after every event is a snapshot that a new run or an import reads — so continue-as-new and
 * export → import can never fail on it. Many runs: no server involved.
 */
import fc from 'fast-check';
import { Agent, ConfigChange, InputRejectedError, LivecontextError, type StepDeps, readSnapshot } from '../../agent/index';
import { anyJson, oddCount, oddId, oddText, rawArguments, toolNames } from './arbitraries';

const invocation = { providerId: 'fake', specification: 'fake', model: 'm' };

const oddModelOutput = fc.record(
  {
    contents: fc.oneof(fc.array(oddText, { maxLength: 3 }), anyJson),
    toolCalls: fc.oneof(
      fc.array(
        fc.record(
          {
            toolName: fc.oneof(fc.constantFrom(...toolNames), anyJson),
            toolCallId: fc.oneof(oddId, anyJson),
            rawArguments: fc.oneof(rawArguments, anyJson),
            arguments: anyJson,
            parseError: fc.oneof(fc.string(), anyJson),
          },
          { requiredKeys: ['toolName', 'toolCallId', 'rawArguments'] },
        ),
        { maxLength: 4 },
      ),
      anyJson,
    ),
    invocation: fc.oneof(fc.constant(invocation), anyJson),
    usage: fc.oneof(
      fc.record({ inputTokens: oddCount, outputTokens: oddCount, cachedInputTokens: oddCount, costUsd: oddCount }, { requiredKeys: [] }),
      anyJson,
    ),
    thinking: fc.oneof(fc.string(), anyJson),
    metadata: fc.oneof(fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 3 }), anyJson),
  },
  { requiredKeys: ['contents', 'toolCalls', 'invocation'] },
);

const oddToolResult = fc.record(
  {
    toolCallId: fc.oneof(oddId, anyJson),
    toolName: anyJson,
    status: fc.oneof(fc.constantFrom('Success', 'Failed', 'Skipped', 'Weird'), anyJson),
    result: fc.oneof(fc.string({ maxLength: 20 }), anyJson),
    elapsedMs: oddCount,
    metadata: fc.oneof(fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 3 }), anyJson),
  },
  { requiredKeys: [] },
);

const event = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('step' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('input' as const), raw: fc.oneof(fc.record({ text: oddText }), anyJson) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('decide' as const),
      raw: fc.oneof(fc.record({ toolCallId: oddId, approved: anyJson }), anyJson),
      pick: fc.nat(3),
      approved: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('configure' as const),
      raw: fc.oneof(fc.record({ parallelTools: fc.boolean() }), fc.record({ approval: fc.constant({ record: 'always' }) }), anyJson),
    }),
  },
);

test('no sequence of odd outputs, tool results and sender input makes a state a new run would refuse', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(event, { minLength: 1, maxLength: 25 }),
      fc.array(oddModelOutput, { maxLength: 10 }),
      fc.array(oddToolResult, { maxLength: 10 }),
      fc.boolean(),
      async (events, outputs, results, interruptTimers) => {
        let now = Date.UTC(2026, 0, 1);
        const clock = () => (now += 1000);
        const agent = Agent.create({ config: { model: 'fake:m' }, clock });
        const deps: StepDeps = {
          async callModel() {
            const next = outputs.shift();
            if (!next) throw new LivecontextError('ModelError.Unavailable', 'no more outputs');
            return next as never;
          },
          async executeTool(call) {
            const r = results.shift();
            if (!r) throw new Error('executor failed');
            return { toolCallId: call.toolCallId, ...(r as object) } as never;
          },
          sleep: async () => !interruptTimers,
        };
        for (const e of events) {
          if (e.kind === 'step') {
            await agent.doStep(deps); // must never throw
            if (agent.lastError) agent.clearError();
          } else if (e.kind === 'input') {
            try {
              agent.enqueueInput(e.raw);
            } catch (err) {
              expect(err).toBeInstanceOf(InputRejectedError);
            }
          } else if (e.kind === 'decide') {
            const pending = agent.pendingToolCalls();
            const raw = pending.length && e.pick < pending.length ? { toolCallId: pending[e.pick].toolCallId, approved: e.approved } : e.raw;
            try {
              agent.decideToolCall(raw);
            } catch (err) {
              expect(err).toBeInstanceOf(InputRejectedError);
            }
          } else {
            const change = ConfigChange.safeParse(e.raw); // the workflow's validator: only valid changes are applied
            if (change.success) {
              const { systemInstruction: _s, ...rest } = change.data;
              agent.config = { ...agent.config, ...rest };
            }
          }
          const carried = JSON.parse(JSON.stringify(agent.toSnapshot()));
          expect(() => readSnapshot(carried)).not.toThrow();
          const restored = Agent.fromSnapshot(carried, clock);
          expect(JSON.parse(JSON.stringify(restored.toSnapshot()))).toEqual(carried);
        }
      },
    ),
    { numRuns: 300 },
  );
});
