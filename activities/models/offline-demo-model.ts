/**
 * `demo:offline` — a clearly labelled stand-in used when no API key is configured. It is not an LLM:
 * it files each message as a note in the workspace with real tool calls (write_file, list_files) and
 * then reports what it did, so a new user sees the whole durable tool loop without any account.
 */
import { BaseModel } from './base-model';
import type { ContextMessage, MessageDelta, ToolResultsEntry } from '../../agent';
import { DeltaSequencer, unwrap } from '../../agent';
import type { ModelProvider } from './model-router';

export const OFFLINE_DEMO_MODEL = 'demo:offline';
const LABEL = '[offline demo model: no API key configured, this is not an LLM]';

export const offlineDemoProvider: ModelProvider = {
  id: 'demo',
  create: (modelId) => new OfflineDemoModel(modelId),
};

class OfflineDemoModel extends BaseModel {
  constructor(modelId: string) {
    super('demo', 'offline-demo', modelId);
  }

  async *stream(messages: readonly ContextMessage[]): AsyncIterable<MessageDelta> {
    const d = new DeltaSequencer();
    yield d.next({ kind: 'start', modelId: this.config.modelId });
    const last = messages.length ? unwrap(messages[messages.length - 1]) : undefined;
    const noteNumber = messages.filter((m) => unwrap(m).kind === 'model_input').length;
    if (last?.kind === 'model_input') {
      const text = last.sections.map((s) => s.content).join('\n\n');
      yield* words(d, `${LABEL} Filing your message as note ${noteNumber}.`);
      const calls = [
        { id: `demo_${noteNumber}_write`, name: 'write_file', args: { path: `notes/note-${noteNumber}.md`, content: `${text}\n` } },
        { id: `demo_${noteNumber}_list`, name: 'list_files', args: { path: 'notes' } },
      ];
      for (const c of calls) {
        yield d.next({ kind: 'tool_call_start', toolCallId: c.id, toolName: c.name });
        yield d.next({ kind: 'tool_call_args', toolCallId: c.id, argsTextDelta: JSON.stringify(c.args) });
        yield d.next({ kind: 'tool_call_end', toolCallId: c.id });
      }
      yield d.next({ kind: 'done', finishReason: 'tool_calls' });
      return;
    }
    if (last?.kind === 'tool_results') {
      yield* words(d, describeResults(last, noteNumber));
    } else {
      yield* words(d, `${LABEL} Send me a message and I will file it as a note.`);
    }
    yield d.next({ kind: 'done', finishReason: 'stop' });
  }
}

function describeResults(entry: ToolResultsEntry, noteNumber: number): string {
  const failed = entry.results.filter((r) => r.status !== 'Success');
  if (failed.length) return `${LABEL} A tool failed: ${failed.map((r) => `${r.toolName}: ${r.result}`).join('; ')}`;
  const listing = entry.results.find((r) => r.toolName === 'list_files')?.result ?? '';
  const notes = listing.split('\n').filter(Boolean);
  return `${LABEL} Saved note ${noteNumber} (notes/note-${noteNumber}.md). Your notes folder now holds ${notes.length} note(s): ${notes.join(', ')}. Set OPENAI_API_KEY or ANTHROPIC_API_KEY and choose a model to talk to a real LLM.`;
}

function* words(d: DeltaSequencer, text: string): Generator<MessageDelta> {
  for (const piece of text.match(/\S+\s*/g) ?? []) yield d.next({ kind: 'text', text: piece });
}
