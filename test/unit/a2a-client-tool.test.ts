/**
 * A remote A2A agent as a tool: its description from the card (skills, the override, a card not read yet),
 * its arguments, the message it sends (the call's idempotency key as the message id), and what each way a
 * remote task ends becomes for the model — the token cut out of every text.
 */
import { AgentCard, Message, Task } from '@a2a-js/sdk';
import { A2aAgentConnection } from '../../activities/a2a/a2a-connection';
import { A2aCallArgs, a2aRequest, a2aTaskIdIn, a2aTool } from '../../activities/a2a/a2a-tool';
import { MAX_DESCRIPTION_CHARS, a2aToolDescription } from '../../activities/a2a/card-description';
import { A2aTaskError, a2aResult } from '../../activities/a2a/task-result';
import { toolSpec } from '../../activities/tools/define-tool';

const card = AgentCard.fromJSON({
  name: 'billing-agent',
  description: 'Handles invoices and refunds.',
  skills: [
    { id: 'refund', name: 'Refunds', description: 'Refund a paid invoice.' },
    { id: 'lookup', name: '', description: 'Find an invoice by number.' },
  ],
});

const task = (state: string, extra: Record<string, unknown> = {}) =>
  Task.fromJSON({
    id: 'turn-3@billing',
    contextId: 'billing',
    status: { state, message: { role: 'ROLE_AGENT', parts: [{ text: 'status words' }] } },
    ...extra,
  });

test('the description: what the card says, its skills, and whose agent it is; the override replaces the card’s words; no card yet', () => {
  expect(a2aToolDescription('billing', card)).toBe(
    'Handles invoices and refunds.\nSkills:\n- Refunds: Refund a paid invoice.\n- lookup: Find an invoice by number.\n(A2A agent "billing-agent"; send it a message, get its answer)',
  );
  expect(a2aToolDescription('billing', card, 'Ask about bills.')).toMatch(/^Ask about bills\.\nSkills:/);
  expect(a2aToolDescription('billing', undefined)).toBe('A remote agent (A2A agent "billing"; send it a message, get its answer)');
  const long = AgentCard.fromJSON({ name: 'x', description: 'y'.repeat(5000) });
  expect(a2aToolDescription('x', long)).toHaveLength(MAX_DESCRIPTION_CHARS);
});

test('the tool: named by its key, a message and optionally the task and context to go on with; the token never in its description', () => {
  const connection = new A2aAgentConnection({
    name: 'billing',
    cardUrl: 'http://127.0.0.1:1/.well-known/agent-card.json',
    token: 'tok-secret-123456',
    secrets: [{ name: 'B_TOKEN', value: 'tok-secret-123456' }],
  });
  connection.card = AgentCard.fromJSON({ name: 'b', description: 'Leaks tok-secret-123456 in its card.' });
  const spec = toolSpec(a2aTool(connection));
  expect(spec.name).toBe('billing');
  expect(spec.description).toContain('Leaks [redacted $B_TOKEN] in its card.');
  expect(spec.parameters).toMatchObject({ type: 'object', required: ['message'], properties: { message: {}, taskId: {}, contextId: {} } });
  expect(A2aCallArgs.safeParse({ message: '' }).success).toBe(false);
  expect(a2aTaskIdIn({ a2a_task_id: 'turn-1@b', tool: 'billing' })).toBe('turn-1@b');
  expect(a2aTaskIdIn({ mcp_task_id: 'x' })).toBeUndefined();
});

test('the message: its id the call’s idempotency key, sent to return at once; a reply names the task', () => {
  const first = a2aRequest({ message: 'Refund invoice 42.' }, 'agent-a/call_1');
  expect(first.message).toMatchObject({ messageId: 'agent-a/call_1', taskId: '', parts: [{ content: { $case: 'text', value: 'Refund invoice 42.' } }] });
  expect(first.configuration?.returnImmediately).toBe(true);
  const reply = a2aRequest({ message: 'approve', taskId: 'turn-3@billing', contextId: 'billing' }, 'agent-a/call_2');
  expect(reply.message).toMatchObject({ messageId: 'agent-a/call_2', taskId: 'turn-3@billing', contextId: 'billing' });
});

test('completed: the artifacts’ text and data; a direct message: its text', () => {
  const done = task('TASK_STATE_COMPLETED', {
    artifacts: [
      { artifactId: 'answer', parts: [{ text: 'Refunded.' }, { data: { refunded: 42 } }] },
      { artifactId: 'more', parts: [{ text: 'Receipt sent.' }] },
    ],
  });
  expect(a2aResult('billing', done)).toEqual({
    text: 'Refunded.\n{"refunded":42}\n\nReceipt sent.',
    metadata: { a2a_agent: 'billing', a2a_task_id: 'turn-3@billing', a2a_context_id: 'billing', a2a_state: 'completed' },
  });
  expect(a2aResult('billing', task('TASK_STATE_COMPLETED'))).toMatchObject({ text: 'status words' });
  const message = Message.fromJSON({ messageId: 'm1', contextId: 'c1', role: 'ROLE_AGENT', parts: [{ text: 'Hi.' }] });
  expect(a2aResult('billing', message)).toEqual({ text: 'Hi.', metadata: { a2a_agent: 'billing', a2a_context_id: 'c1' } });
});

test('input-required: what the remote asks, and how to answer it on the same task', () => {
  const out = a2aResult('billing', task('TASK_STATE_INPUT_REQUIRED')) as { text: string; metadata: Record<string, unknown> };
  expect(out.metadata).toMatchObject({ a2a_state: 'input-required', a2a_task_id: 'turn-3@billing', a2a_context_id: 'billing' });
  expect(out.text).toContain('needs input before it can go on (task turn-3@billing, context billing): status words');
  expect(out.text).toContain('call billing again with {"message":"<your answer>","taskId":"turn-3@billing","contextId":"billing"}');
});

test.each([
  ['TASK_STATE_FAILED', /failed its task turn-3@billing: status words/],
  ['TASK_STATE_CANCELED', /task turn-3@billing was canceled: status words/],
  ['TASK_STATE_REJECTED', /rejected the task turn-3@billing: status words/],
  ['TASK_STATE_AUTH_REQUIRED', /asks for authentication this worker cannot give/],
])('%s: a tool error that says so', (state, message) => {
  expect(() => a2aResult('billing', task(state))).toThrow(A2aTaskError);
  expect(() => a2aResult('billing', task(state))).toThrow(message);
});
