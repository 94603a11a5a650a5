/**
 * MemoryNotebookWidget (seed 003): a notebook the model edits with `memory_notebook_replace` and sees
 * in its LiveScreen on every call. The host may set or append to it too (seed 000 `UpdateMemoryNotebook`).
 */
import { z } from 'zod';
import type { JsonValue, Metadata } from '../entries';
import type { Widget, WidgetKind, WidgetToolResult } from './widget';

export const MEMORY_NOTEBOOK_REPLACE = 'memory_notebook_replace';
export const NOTEBOOK_PLACEHOLDER = '(empty: nothing noted yet)';

export const NotebookReplaceArgs = z
  .object({
    old_text: z.string().describe('Exact text to replace (its first occurrence). Empty: append new_text at the end.'),
    new_text: z.string().describe('Replacement text (may be empty to delete old_text).'),
    search_after: z.string().optional().describe('Optional anchor: only look for old_text after the first occurrence of this text.'),
  })
  .strict();
export type NotebookReplaceArgs = z.infer<typeof NotebookReplaceArgs>;

export type NotebookEdit = { ok: true; content: string; metadata: Metadata; message: string } | { ok: false; message: string; metadata: Metadata };

/** The pure edit: used by the widget and by rebuilding the notebook from history. */
export function applyNotebookReplace(content: string, args: NotebookReplaceArgs): NotebookEdit {
  let from = 0;
  let anchorHit: boolean | null = null;
  if (args.search_after !== undefined && args.search_after !== '') {
    const at = content.indexOf(args.search_after);
    anchorHit = at >= 0;
    if (at < 0) {
      return {
        ok: false,
        message: `search_after text not found in the notebook; nothing changed. Check the exact text in the Live Screen.`,
        metadata: { operation: 'replace', anchor_hit: false, length_before: content.length, length_after: content.length },
      };
    }
    from = at + args.search_after.length;
  }
  if (args.old_text === '') {
    const next = content + args.new_text;
    return {
      ok: true,
      content: next,
      message: `Appended ${args.new_text.length} characters to the notebook (now ${next.length}).`,
      metadata: {
        operation: 'append',
        anchor_hit: anchorHit,
        length_before: content.length,
        length_after: next.length,
        length_delta: next.length - content.length,
      },
    };
  }
  const index = content.indexOf(args.old_text, from);
  if (index < 0) {
    return {
      ok: false,
      message: `old_text not found in the notebook${anchorHit ? ' after search_after' : ''}; nothing changed. Copy it exactly from the Live Screen.`,
      metadata: { operation: 'replace', anchor_hit: anchorHit, length_before: content.length, length_after: content.length },
    };
  }
  const next = content.slice(0, index) + args.new_text + content.slice(index + args.old_text.length);
  return {
    ok: true,
    content: next,
    message: `Replaced ${args.old_text.length} characters at offset ${index} with ${args.new_text.length} (notebook now ${next.length}).`,
    metadata: {
      operation: 'replace',
      anchor_hit: anchorHit,
      match_index: index,
      length_before: content.length,
      length_after: next.length,
      length_delta: next.length - content.length,
    },
  };
}

/** The largest notebook a write may leave (the notebook is in every model call); for the model's own edits, since NOTEBOOK_CAP_CHANGE. */
export const NOTEBOOK_MAX_CHARS = 64 * 1024;

/** The workflow patch behind the bound on the model's notebook edits (asked only when an edit would pass it). */
export const NOTEBOOK_CAP_CHANGE = 'notebook-cap';

/** A host write: replace the whole notebook, or append to it. */
export const NotebookHostWrite = z.union([z.object({ set: z.string() }).strict(), z.object({ append: z.string() }).strict()]);
export type NotebookHostWrite = z.infer<typeof NotebookHostWrite>;

export class MemoryNotebookWidget implements Widget {
  readonly name = 'memory_notebook';
  readonly description = 'A notebook of things worth remembering, always visible in the Live Screen.';
  readonly tools = [
    {
      name: MEMORY_NOTEBOOK_REPLACE,
      description:
        'Edit your memory notebook: replace the first occurrence of old_text (after search_after, if given) with new_text. ' +
        'An empty old_text appends new_text. The notebook is shown in the Live Screen.',
      parameters: NotebookReplaceArgs,
    },
  ] as const;

  constructor(private contentValue = '') {}

  get content(): string {
    return this.contentValue;
  }

  renderLiveScreen(): string {
    return `## Memory Notebook\n\n${this.contentValue.trim() === '' ? NOTEBOOK_PLACEHOLDER : this.contentValue}`;
  }

  executeTool(toolName: string, args: unknown): WidgetToolResult {
    if (toolName !== MEMORY_NOTEBOOK_REPLACE) return { status: 'Failed', result: `The notebook has no tool ${toolName}.` };
    const parsed = NotebookReplaceArgs.safeParse(args);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
      return { status: 'Failed', result: `Invalid arguments for ${toolName}: ${why}. Fix them and call it again.` };
    }
    const edit = applyNotebookReplace(this.contentValue, parsed.data);
    if (!edit.ok) return { status: 'Failed', result: edit.message, metadata: edit.metadata };
    this.contentValue = edit.content;
    return { status: 'Success', result: edit.message, metadata: edit.metadata };
  }

  overLimit(toolName: string, args: unknown): string | undefined {
    const parsed = NotebookReplaceArgs.safeParse(args);
    if (toolName !== MEMORY_NOTEBOOK_REPLACE || !parsed.success) return undefined;
    const edit = applyNotebookReplace(this.contentValue, parsed.data);
    if (!edit.ok || edit.content.length <= NOTEBOOK_MAX_CHARS || edit.content.length <= this.contentValue.length) return undefined;
    return (
      `The notebook would hold ${edit.content.length} characters; it holds at most ${NOTEBOOK_MAX_CHARS} (it is in every model call). ` +
      'Nothing changed: make room first (replace older notes with shorter ones, or delete what no longer matters).'
    );
  }

  applyHostWrite(write: unknown): WidgetToolResult {
    const parsed = NotebookHostWrite.safeParse(write);
    if (!parsed.success) return { status: 'Failed', result: 'A notebook write is { "set": text } or { "append": text }.' };
    const before = this.contentValue.length;
    const next = 'set' in parsed.data ? parsed.data.set : this.contentValue + parsed.data.append;
    if (next.length > NOTEBOOK_MAX_CHARS) {
      return { status: 'Failed', result: `The notebook would hold ${next.length} characters; at most ${NOTEBOOK_MAX_CHARS} (it is in every model call).` };
    }
    this.contentValue = next;
    const operation = 'set' in parsed.data ? 'set' : 'append';
    return {
      status: 'Success',
      result: `Notebook ${operation === 'set' ? 'set' : 'appended to'} (now ${next.length} characters).`,
      metadata: { operation, length_before: before, length_after: next.length },
    };
  }

  toJSON() {
    return { content: this.contentValue };
  }
}

export const memoryNotebookKind: WidgetKind = {
  name: 'memory_notebook',
  tools: new MemoryNotebookWidget().tools,
  alwaysCarried: true,
  create(state?: JsonValue) {
    const content = (state as { content?: unknown } | undefined)?.content;
    return new MemoryNotebookWidget(typeof content === 'string' ? content : '');
  },
};
