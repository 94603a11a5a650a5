/**
 * Compaction (policy `compact`): when the rendered context passes its threshold, the oldest turns are
 * summarised by a model call and later calls render the summary in their place (see live-context.ts).
 * Here, pure: where to cut, and what the summary call is sent. The cut is always at a turn or tool
 * call/result boundary, so no tool call is ever separated from its results.
 */
import { leadingCount, splitTurns } from './context-budget';
import type { ContentSection, HistoryEntry } from './entries';
import { lastCompaction } from './entries';
import { USER_SECTION_TITLE } from './input';
import { type ContextMessage, unwrap } from './live-context';
import { visibleEntries } from './time-travel';

/**
 * The seq to compact through: the oldest call/result groups of `messages` (as renderLiveContext gives
 * them), keeping the newest groups that fit in `keepTokens` (at least the newest one). Undefined when
 * nothing older than that is left to summarise.
 */
export function chooseCompaction(messages: readonly ContextMessage[], keepTokens: number, count: (m: ContextMessage) => number): number | undefined {
  const groups = splitTurns(messages.slice(leadingCount(messages))).flat(1);
  let kept = 0;
  let first = groups.length; // index of the oldest group kept
  while (first > 0) {
    const size = groups[first - 1].reduce((n, m) => n + count(m), 0);
    if (first < groups.length && kept + size > keepTokens) break;
    kept += size;
    first--;
  }
  if (first === 0) return undefined;
  const lastCut = unwrap(groups[first - 1][groups[first - 1].length - 1]);
  // A call whose results are not rendered yet (never at a model call, but never cut there either).
  if (lastCut.kind === 'model_output' && lastCut.toolCalls.length > 0) return undefined;
  const firstKept = unwrap(groups[first][0]);
  return 'seq' in firstKept ? firstKept.seq - 1 : undefined;
}

/** What the summary call is told to do (its system instruction). */
export const COMPACTION_INSTRUCTION = [
  "You compact the memory of a long-running AI agent. The agent's context window is filling up, so the oldest part of its conversation will be replaced by your summary.",
  'Write the summary the agent will read in its place: what the user asked and wants, decisions made and why, facts learned (names, numbers, paths, identifiers, URLs exactly as they appeared), what tools were called and what they returned that still matters, commitments and open questions, and where the work stands.',
  'If a previous summary is given, merge it with the new conversation into one summary; drop nothing that still matters.',
  'Write plain, dense notes in the third person ("The user asked…", "The agent found…"). Do not address the user, do not continue the conversation, and do not call tools.',
].join('\n');

/** The one input of a summary call: the previous summary and the entries after it up to `throughSeq`, as a transcript. */
export function compactionSections(all: readonly HistoryEntry[], uptoSeq: number, throughSeq: number, maxWords?: number): ContentSection[] {
  const entries = visibleEntries(all, uptoSeq); // a summary stands for what is in force, never what a rewind took out
  const before = lastCompaction(entries, uptoSeq);
  const fromSeq = (before?.throughSeq ?? 0) + 1;
  const lines = entries.filter((e) => e.seq >= fromSeq && e.seq <= throughSeq).flatMap(transcriptLines);
  const sections: ContentSection[] = [];
  if (before) sections.push({ title: `Previous summary (entries #1–#${before.throughSeq})`, content: before.summary });
  sections.push({ title: `Conversation to summarise (entries #${fromSeq}–#${throughSeq})`, content: lines.join('\n\n') || '(no messages)' });
  const length = maxWords ? ` Keep it under about ${maxWords} words.` : '';
  sections.push({ title: 'Task', content: `Write the summary of entries #1–#${throughSeq} now.${length}` });
  return sections;
}

/** One entry as transcript lines, numbered by seq so the summary can say where things came from. */
function transcriptLines(e: HistoryEntry): string[] {
  switch (e.kind) {
    case 'model_input': {
      const images = e.attachments?.length ? ` [${e.attachments.length} image(s)]` : '';
      return [`#${e.seq} ${e.sender ?? 'user'}:${images} ${sectionsText(e.sections)}`];
    }
    case 'model_output': {
      const lines = e.contents.join('') ? [`#${e.seq} agent: ${e.contents.join('')}`] : [];
      for (const c of e.toolCalls) lines.push(`#${e.seq} agent called ${c.toolName}(${c.rawArguments})`);
      return lines;
    }
    case 'tool_results':
      if (e.results.length === 0 && e.executeError) return [`#${e.seq} tools not run: ${e.executeError}`];
      return e.results.map((r) => `#${e.seq} ${r.toolName} → ${r.status}: ${r.result}`);
    case 'system_instruction':
      return [`#${e.seq} (the system instruction changed to: ${e.instruction})`];
    case 'turn_end':
      return [e.reason === 'ask_user' ? `#${e.seq} agent asked the user: ${e.question ?? ''}` : `#${e.seq} (the turn was interrupted)`];
    case 'widget_write':
    case 'compaction':
    case 'model_failure': // the record's, not the model's: a summary leaves it out as the context does
    case 'rewind': // what it took out is out of the transcript already (visibleEntries)
    case 'tool_rules': // the agent's approval rules: the host's business, not the conversation's
    case 'a2a_push': // a caller's webhook: the host's business
      return [];
  }
}

function sectionsText(sections: readonly ContentSection[]): string {
  if (sections.length === 1 && sections[0].title === USER_SECTION_TITLE) return sections[0].content;
  return sections.map((s) => `${s.title}: ${s.content}`).join('\n');
}
