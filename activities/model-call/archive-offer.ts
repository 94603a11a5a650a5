/**
 * Whether a model call offers the archive's tools (`recall`, `expand`): only when the agent has a past
 * out of the model's context — archived entries (the call then carries `archive`) or a compaction
 * among its entries. Every other agent's requests stay exactly as they were.
 */
import type { HistoryEntry } from '../../agent/index';
import type { CallModelInput } from '../types';

export function offersArchiveTools(input: CallModelInput, entries: readonly HistoryEntry[]): boolean {
  if (input.archive !== undefined) return true;
  return entries.some((e) => (e.kind as string) === 'compaction');
}
