/**
 * Issue 26: the offline demo model answers a greeting or a question instead of filing it as a note,
 * files what looks like a note, and says a deletion once ("Deleted notes/note-2.md.", not
 * "Deleted. Deleted …"). The model itself, without a worker: what it streams for one context.
 */
import { offlineDemoProvider } from '../../activities/models/offline-demo-model';
import type { ContextMessage, MessageDelta, ToolSpec } from '../../agent/index';

const tools = ['write_file', 'delete_file', 'sleep', 'memory_notebook_replace', 'todo_add', 'todo_update'].map(
  (name) => ({ name, description: name, inputSchema: {} }) as unknown as ToolSpec,
);

async function reply(last: Record<string, unknown>) {
  const deltas: MessageDelta[] = [];
  for await (const d of offlineDemoProvider.create('offline').stream([last as unknown as ContextMessage], tools, undefined, {} as never)) deltas.push(d);
  const text = deltas.flatMap((d) => (d.kind === 'text' ? [d.text] : [])).join('');
  const calls = deltas.flatMap((d) => (d.kind === 'tool_call_start' ? [d.toolName] : []));
  return { text, calls };
}
const say = (content: string) => reply({ kind: 'model_input', seq: 3, inputSeq: 3, sections: [{ content }] });

test.each(['hi', 'Hello!', 'hello there', 'hey', 'good morning', 'thanks', 'Thank you.'])('a greeting (%s) is answered, not filed', async (text) => {
  const r = await say(text);
  expect(r.calls).toEqual([]);
  expect(r.text).toMatch(/^\[offline demo model: not an LLM\] Hello! I am the offline demo model, not an LLM/);
  expect(r.text).toContain('"remember I like tea"');
});

test.each(['what can you do?', 'help', 'Who are you', 'is it raining?'])('a question (%s) is answered with what the demo shows', async (text) => {
  const r = await say(text);
  expect(r.calls).toEqual([]);
  expect(r.text).toMatch(/cannot answer that\. Try: /);
});

test.each(['buy milk', 'call Ada', 'hello from another namespace', 'hi-fi cable for the living room'])('what looks like a note (%s) is filed', async (text) => {
  expect(await say(text)).toMatchObject({ calls: ['write_file'], text: expect.stringContaining('Filing your message as note 3.') });
});

test('a deletion is said once', async () => {
  const r = await reply({
    kind: 'tool_results',
    seq: 9,
    results: [{ toolName: 'delete_file', toolCallId: 'c1', status: 'Success', result: 'Deleted notes/note-2.md.' }],
  });
  expect(r.text).toMatch(/^\[offline demo model: not an LLM\] Deleted notes\/note-2\.md\. Set OPENAI_API_KEY/);
  expect(r.text).not.toMatch(/Deleted\. Deleted/);
});
