/**
 * `demo:offline` — a clearly labelled stand-in used when no API key is configured. It is not an LLM:
 * it picks real tool calls from words in the message, so a new user sees what livecontext is for
 * without any account — the durable tool loop, the memory notebook, the task list, a tool call waiting for approval,
 * a durable timer, two tools at once — and can kill the worker mid-turn and watch the turn finish.
 * It only calls tools the agent is offered (`--tools`), and names notes by input number, so notes
 * written before a /reset are never overwritten.
 */
import { randomBytes } from 'node:crypto';
import { BaseModel } from './base-model';
import type { ContextMessage, MessageDelta, ModelInputEntry, ToolResultsEntry, ToolSpec } from '../../agent/index';
import { DeltaSequencer, unwrap } from '../../agent/index';
import type { ModelProvider } from './model-router';

export const OFFLINE_DEMO_MODEL = 'demo:offline';
const LABEL = '[offline demo model: not an LLM]';
/** What the demo does on which words; shown when it has nothing else to do. */
export const DEMO_HELP =
  'Try: "remember I like tea" (memory notebook), "plan buy milk, call mum" and "done 1" (task list), ' +
  '"delete note 2" (a call that waits for /approve), ' +
  '"sleep 20" (a durable timer: kill the worker meanwhile and restart it), "both" (a timer and a file at once), ' +
  'or any other text, such as "buy milk" (filed as a note; a greeting or a question is answered instead).';

/** A message that only greets or thanks: answered, never filed as a note. */
const GREETING =
  /^(?:hi|hello|hey|hiya|howdy|yo|hallo|bonjour|hola|greetings|good\s+(?:morning|afternoon|evening|day)|thanks|thank\s+you|thx|bye|goodbye)(?:\s+(?:there|again|all|everyone|demo|agent|bot|you))*[\s!.,:;)]*$/i;
/** Asking what it can do, or any question: the demo answers none (it is not an LLM) but says what it shows. */
const QUESTION = /^(?:\/?help|what can you do|who are you|what are you)\b|\?\s*$/i;

export const offlineDemoProvider: ModelProvider = {
  id: 'demo',
  create: (modelId) => new OfflineDemoModel(modelId),
};

interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
}

class OfflineDemoModel extends BaseModel {
  constructor(modelId: string) {
    super('demo', 'offline-demo', modelId);
  }

  async *stream(messages: readonly ContextMessage[], toolSpecs: readonly ToolSpec[]): AsyncIterable<MessageDelta> {
    const d = new DeltaSequencer();
    yield d.next({ kind: 'start', modelId: this.config.modelId });
    const last = messages.length ? unwrap(messages[messages.length - 1]) : undefined;
    const offered = new Set(toolSpecs.map((s) => s.name));
    if (last?.kind === 'model_input') {
      const { say, calls } = plan(last, offered);
      yield* words(d, `${LABEL} ${say}`);
      for (const [i, c] of calls.entries()) {
        // Unguessable, as a provider's are: a call waiting for approval is approved by its id, and a
        // predictable one would let anything that can reach the gateway approve it without reading state.
        const id = `demo_${last.seq}_${i}_${randomBytes(8).toString('hex')}`;
        yield d.next({ kind: 'tool_call_start', toolCallId: id, toolName: c.name });
        yield d.next({ kind: 'tool_call_args', toolCallId: id, argsTextDelta: JSON.stringify(c.args) });
        yield d.next({ kind: 'tool_call_end', toolCallId: id });
      }
      yield d.next({ kind: 'done', finishReason: calls.length ? 'tool_calls' : 'stop' });
      return;
    }
    if (last?.kind === 'tool_results') yield* words(d, `${LABEL} ${describeResults(last)}`);
    else yield* words(d, `${LABEL} ${DEMO_HELP}`);
    yield d.next({ kind: 'done', finishReason: 'stop' });
  }
}

/** The tool calls a message asks for, among the offered tools, and what the demo says first. */
function plan(input: ModelInputEntry, offered: Set<string>): { say: string; calls: PlannedCall[] } {
  const text = input.sections
    .map((s) => s.content)
    .join('\n\n')
    .trim();
  const lower = text.toLowerCase();
  const missing = (...names: string[]) => names.filter((n) => !offered.has(n));
  const refuse = (names: string[]) => ({
    say: `I would use ${names.join(' and ')}, but this agent is not offered ${names.length > 1 ? 'them' : 'it'} (see --tools).`,
    calls: [],
  });

  const remember = /^(?:remember|note)\s+(?:that\s+)?(.+)$/is.exec(text);
  if (remember) {
    if (missing('memory_notebook_replace').length) return refuse(['memory_notebook_replace']);
    return {
      say: 'Writing that into my memory notebook.',
      calls: [{ name: 'memory_notebook_replace', args: { old_text: '', new_text: `- ${remember[1].trim()}\n` } }],
    };
  }
  const planned = /^plan\s+(.+)$/is.exec(text);
  if (planned) {
    if (missing('todo_add').length) return refuse(['todo_add']);
    const titles = planned[1]
      .split(/,|\n/)
      .map((t) => t.trim())
      .filter(Boolean)
      .slice(0, 20);
    return { say: `Adding ${titles.length} task${titles.length === 1 ? '' : 's'} to my task list.`, calls: [{ name: 'todo_add', args: { titles } }] };
  }
  const done = /^done\s+#?(\d+)$/i.exec(text);
  if (done) {
    if (missing('todo_update').length) return refuse(['todo_update']);
    return { say: `Marking task ${done[1]} done.`, calls: [{ name: 'todo_update', args: { id: Number(done[1]), status: 'done' } }] };
  }
  const sleep = /\b(?:sleep|wait)\s*(\d+)?/.exec(lower);
  if (sleep) {
    if (missing('sleep').length) return refuse(['sleep']);
    const seconds = Math.min(Number(sleep[1] ?? 15), 3600);
    return {
      say: `Sleeping ${seconds} s on a durable timer (kill the worker now and start it again: the timer goes on).`,
      calls: [{ name: 'sleep', args: { seconds, reason: 'demo' } }],
    };
  }
  const del = /\bdelete\s+note\s*(\d+)/.exec(lower);
  if (del) {
    if (missing('delete_file').length) return refuse(['delete_file']);
    return {
      say: `Deleting note ${del[1]}: that waits for your approval (/approve or /deny).`,
      calls: [{ name: 'delete_file', args: { path: `notes/note-${del[1]}.md` } }],
    };
  }
  // Named by input number, which a reset keeps counting, so an earlier note is never overwritten.
  const note: PlannedCall = { name: 'write_file', args: { path: `notes/note-${input.inputSeq ?? input.seq}.md`, content: `${text}\n` } };
  if (/\b(both|parallel|two tools)\b/.test(lower)) {
    const lacking = missing('sleep', 'write_file');
    if (lacking.length) return refuse(lacking);
    return {
      say: 'A 5 s timer and filing your message, two tools at once (in parallel when the agent has parallelTools).',
      calls: [{ name: 'sleep', args: { seconds: 5, reason: 'demo' } }, note],
    };
  }
  if (GREETING.test(text))
    return {
      say: `Hello! I am the offline demo model, not an LLM: I answer no questions, but I show what an agent does with its tools. ${DEMO_HELP}`,
      calls: [],
    };
  if (QUESTION.test(text)) return { say: `I am the offline demo model, not an LLM, so I cannot answer that. ${DEMO_HELP}`, calls: [] };
  if (missing('write_file').length) return { say: `${DEMO_HELP} (write_file is not offered to this agent, so I cannot file notes.)`, calls: [] };
  return { say: `Filing your message as note ${input.inputSeq ?? input.seq}.`, calls: [note] };
}

function describeResults(entry: ToolResultsEntry): string {
  const failed = entry.results.filter((r) => r.status !== 'Success');
  if (failed.length) return `Not done: ${failed.map((r) => `${r.toolName}: ${r.result}`).join('; ')}`;
  return entry.results
    .map((r) => {
      switch (r.toolName) {
        case 'memory_notebook_replace':
          return 'Noted in my memory notebook (it is in my Live Screen on every call; /notebook shows it).';
        case 'todo_add':
        case 'todo_update':
          return `${r.result} My task list is in my Live Screen on every call (\`livecontext state\` shows it).`;
        case 'sleep':
          return `Awake again: ${r.result}`;
        case 'write_file':
          return `Saved ${/ to (.+)\.$/.exec(r.result)?.[1] ?? 'the note'}.`;
        case 'delete_file':
          return r.result; // "Deleted notes/note-2.md."
        default:
          return `${r.toolName}: ${r.result}`;
      }
    })
    .concat('Set OPENAI_API_KEY or ANTHROPIC_API_KEY to talk to a real LLM.')
    .join(' ');
}

function* words(d: DeltaSequencer, text: string): Generator<MessageDelta> {
  for (const piece of text.match(/\S+\s*/g) ?? []) yield d.next({ kind: 'text', text: piece });
}
