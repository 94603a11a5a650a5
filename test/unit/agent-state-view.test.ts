/**
 * The agent state UIs get (STATE_SNAPSHOT / STATE_DELTA, gateway/events/agent-state-view.ts): the tree of
 * agents — the sub-agents working for an agent and the agent that delegated to it — is part of it, always
 * present (an empty list, null), and the deltas between views carry a child's start, its answer and the
 * end of the batch; what the view leaves out (sequence numbers, the config beyond the model) stays out.
 */
import { applyPatch } from 'fast-json-patch';
import type { AgentStatus } from '../../agent/index';
import { AgentRunState } from '../../agent/index';
import { agentStateView } from '../../gateway/events/agent-state-view';
import { jsonPatch } from '../../gateway/events/json-patch';

const ts = '2025-01-01T00:00:00.000Z';

function status(extra: Partial<AgentStatus> = {}): AgentStatus {
  return {
    runState: AgentRunState.WaitingInput,
    blockedOn: 'input',
    awaitingApproval: [],
    config: { model: 'scripted:delegator' },
    systemInstruction: '',
    notebook: '',
    tasks: [],
    entryCount: 3,
    lastSeq: 3,
    inboxLength: 0,
    nextInputSeq: 2,
    consumedInputSeq: 1,
    pendingToolCalls: [],
    pendingToolResultCount: 0,
    lastError: null,
    usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0, modelCalls: 1 },
    stopping: false,
    warning: null,
    ...extra,
  };
}

const child = (n: number, s: 'Running' | 'Success' | 'Failed' = 'Running') => ({
  toolCallId: `call_1_${n}`,
  agentId: `lead--researcher-3-${n}`,
  profile: 'researcher',
  startedAt: ts,
  status: s,
});

test('an agent outside any tree has no sub-agents and no parent, as values a delta can change', () => {
  const view = agentStateView(status(), 'a');
  expect(view.subAgents).toEqual([]);
  expect(view.delegatedBy).toBeNull();
  expect(Object.keys(view)).toEqual(expect.arrayContaining(['subAgents', 'delegatedBy']));
});

test("a parent's view lists its sub-agents with their status; a child's names its parent", () => {
  const parent = agentStateView(status({ runState: AgentRunState.WaitingToolResults, blockedOn: null, subAgents: [child(0), child(1, 'Success')] }), 'a');
  expect(parent.subAgents).toEqual([child(0), child(1, 'Success')]);
  const sub = agentStateView(
    status({
      config: { model: 'scripted:researcher', delegatedBy: { agentId: 'lead', toolCallId: 'call_1_0', depth: 1 } },
      delegatedBy: { agentId: 'lead', toolCallId: 'call_1_0', depth: 1 },
    }),
    'a',
  );
  expect(sub.delegatedBy).toEqual({ agentId: 'lead', toolCallId: 'call_1_0', depth: 1 });
  expect(sub.subAgents).toEqual([]);
  // Only what the view promises: no sequence numbers, no extra fields a future status may grow.
  const wider = agentStateView(status({ subAgents: [{ ...child(0), secret: 'x' } as ReturnType<typeof child>] }), 'a');
  expect(wider.subAgents[0]).toEqual(child(0));
  expect(JSON.stringify(parent)).not.toMatch(/lastSeq|entryCount/);
});

test('deltas follow a delegation: children start, one answers, the batch ends; applied, each gives the next view', () => {
  const views = [
    status(),
    status({ runState: AgentRunState.WaitingToolResults, blockedOn: null, subAgents: [child(0), child(1)] }),
    status({ runState: AgentRunState.WaitingToolResults, blockedOn: null, subAgents: [child(0), child(1, 'Failed')] }),
    status({ runState: AgentRunState.PendingToolResults, blockedOn: null }),
  ].map((s) => agentStateView(s, 'a'));
  let doc = structuredClone(views[0]);
  for (let i = 1; i < views.length; i++) {
    const ops = jsonPatch(views[i - 1], views[i]);
    expect(ops.some((op) => op.path.startsWith('/subAgents'))).toBe(true);
    doc = applyPatch(doc, structuredClone(ops), true, false).newDocument;
    expect(doc).toEqual(views[i]);
  }
  expect(jsonPatch(views[3], views[3])).toEqual([]);
});

test('a parent of its own: delegatedBy appears in a delta when a view gains it', () => {
  const before = agentStateView(status(), 'a');
  const after = agentStateView(status({ delegatedBy: { agentId: 'lead', toolCallId: 'call_1_0', depth: 2 } }), 'a');
  const ops = jsonPatch(before, after);
  expect(ops).toEqual([{ op: 'replace', path: '/delegatedBy', value: { agentId: 'lead', toolCallId: 'call_1_0', depth: 2 } }]);
});

test('a call whose outcome is unknown is shown with when it started and its effect key (what the service saw)', () => {
  const unknown = { toolCallId: 'call_2_0', toolName: 'charge', arguments: '{"cents":100}', reason: 'attempt 1 never reported', startedAt: ts, since: ts };
  const view = agentStateView(status({ runState: AgentRunState.WaitingToolResults, blockedOn: 'unknown_outcome', unknownOutcomes: [unknown] }), 'shop');
  expect(view.unknownOutcomes).toEqual([{ ...unknown, key: 'shop/call_2_0' }]);
  expect(view.stateWord).toBe('waiting for a resolution');
});
