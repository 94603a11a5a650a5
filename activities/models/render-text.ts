/** Provider-neutral text rendering shared by the adapters. */
import type { ContentSection, ToolCallResult } from '../../agent/index';
import { USER_SECTION_TITLE } from '../../agent/index';

/** Content sections as headed Markdown; a lone plain-text input stays as it was typed. */
export function renderSections(sections: readonly ContentSection[]): string {
  if (sections.length === 1 && sections[0].title === USER_SECTION_TITLE) return sections[0].content;
  return sections.map((s) => `## ${s.title}\n\n${s.content}`).join('\n\n');
}

/** What the model reads for one tool result; failures and skips say so first. */
export function renderToolResult(result: ToolCallResult): string {
  const text = result.result === '' ? '(no output)' : result.result;
  if (result.status === 'Failed') return `Error: ${text}`;
  if (result.status === 'Skipped') return `Skipped: ${text}`;
  return text;
}
