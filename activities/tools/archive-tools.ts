/**
 * The built-in `recall` and `expand` tools: the model gets back what left its context — turns sealed into
 * the archive, turns a compaction summarised — by searching them (`recall`) and reading a seq range
 * verbatim (`expand`). They run as activities; the agent's archive index comes from its `archive` query
 * and its working set from the `entries` query, and the segments from the blob store (common/archive).
 * Offered to the model only when the agent has an archive or a compaction (see call-model.ts).
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { HistoryEntry } from '../../agent/index';
import { type ArchiveIndex, emptyArchive, withoutArchivedRewound } from '../../agent/archive';
import { type ArchiveStore, termsOf } from '../../common/archive/index';
import { type EntriesPage, archiveQuery, entriesQuery } from '../../workflows/messages';
import { EXPAND_MAX_ENTRIES, expandText, recallText } from './archive-text';
import { type Tool, defineTool } from './define-tool';
import { READ_ONLY_TOOL_RETRY } from './tool-retry';

/** The registry source of the archive tools, which the model is offered only for agents with a past to recall. */
export const ARCHIVE_TOOLS_SOURCE = 'archive';

/** What the tools read of one agent beside the blob store. */
export interface AgentPast {
  /** Its archive index; null when nothing is archived. */
  archive(): Promise<ArchiveIndex | null>;
  /** Its working-set entries after `afterSeq` (through `uptoSeq`, at most `limit`), in order, and its newest seq. */
  working(range: { afterSeq: number; uptoSeq?: number; limit?: number }): Promise<{ entries: HistoryEntry[]; lastSeq: number }>;
}

export interface ArchiveToolsOptions {
  /** The worker's archive store. */
  archive: ArchiveStore;
  /** Default: the agent's queries, through the activity's client. */
  past?: (agentId: string) => AgentPast;
}

const Recall = z.object({
  query: z.string().min(1).describe('Words to look for, e.g. a name, a number or a topic'),
  limit: z.number().int().min(1).max(50).optional().describe('Most matches to return (default 10)'),
});

const Expand = z.object({
  fromSeq: z.number().int().min(1).describe('First seq of the range'),
  toSeq: z.number().int().min(1).describe(`Last seq of the range (up to ${EXPAND_MAX_ENTRIES} entries are shown per call)`),
});

export function archiveTools(options: ArchiveToolsOptions): Tool[] {
  const pastOf = options.past ?? ((agentId: string) => queriedPast(Context.current().client, agentId));

  const recall = defineTool({
    name: 'recall',
    retry: READ_ONLY_TOOL_RETRY,
    description:
      'Search the earlier part of this conversation that is no longer in your context (archived or summarised turns) for words, ' +
      'and get the matching entries with their seq numbers. Use it when you need a detail from long ago.',
    parameters: Recall,
    idempotent: true, // reads only: running it again after an unknown outcome does no harm
    async execute({ query, limit }, ctx) {
      if (termsOf(query).length === 0) {
        throw new Error(`"${query}" has no word recall can search for: use words of 3 or more letters (or numbers) that are not among the most common ones.`);
      }
      const past = pastOf(ctx.agentId);
      const index = await past.archive();
      const working = await past.working({ afterSeq: index?.throughSeq ?? 0 });
      const matches = await options.archive.search(index ?? emptyArchive(), query, { limit, extra: beforeCurrentTurn(working.entries) });
      return { text: recallText(query, matches), metadata: { matches: matches.length } };
    },
  });

  const expand = defineTool({
    name: 'expand',
    retry: READ_ONLY_TOOL_RETRY,
    description:
      'Read entries fromSeq…toSeq of this conversation verbatim (seq numbers as recall gives them), ' +
      `at most ${EXPAND_MAX_ENTRIES} entries or about 30 KB per call.`,
    parameters: Expand,
    idempotent: true, // reads only: running it again after an unknown outcome does no harm
    async execute({ fromSeq, toSeq }, ctx) {
      if (toSeq < fromSeq) throw new Error(`toSeq (${toSeq}) is before fromSeq (${fromSeq}); give fromSeq ≤ toSeq.`);
      const past = pastOf(ctx.agentId);
      const index = await past.archive();
      const throughSeq = index?.throughSeq ?? 0;
      const limit = EXPAND_MAX_ENTRIES + 1; // one more than shown, to tell whether there are more
      const read = index && fromSeq <= throughSeq ? await options.archive.entries(index, { afterSeq: fromSeq - 1, uptoSeq: toSeq, limit }) : [];
      const archived = withoutArchivedRewound(index ?? undefined, read); // what a rewind into the archive took out is not the model's
      const working = await past.working({ afterSeq: Math.max(fromSeq - 1, throughSeq), uptoSeq: toSeq, limit: limit - archived.length });
      return expandText([...archived, ...working.entries], { fromSeq, toSeq }, working.lastSeq);
    },
  });

  return [recall, expand];
}

/** Entries before the turn in progress: the model has that turn in front of it (and its recall call would match itself). */
function beforeCurrentTurn(entries: readonly HistoryEntry[]): HistoryEntry[] {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].kind === 'model_input') return entries.slice(0, i);
  return [...entries];
}

/** The agent's past through its queries (answered by whichever worker runs its workflow). */
export function queriedPast(client: Client, agentId: string): AgentPast {
  const handle = client.workflow.getHandle(agentId);
  return {
    archive: () => handle.query(archiveQuery),
    async working({ afterSeq, uptoSeq, limit = Number.POSITIVE_INFINITY }) {
      const entries: HistoryEntry[] = [];
      let lastSeq = 0;
      let after: number | null = afterSeq;
      do {
        // Asked at least once, for the agent's newest seq.
        const page: EntriesPage = await handle.query(entriesQuery, {
          afterSeq: after,
          ...(uptoSeq !== undefined ? { uptoSeq } : {}),
          limit: Math.max(1, Math.min(limit - entries.length, 500)),
        });
        // What a rewind took out is not the model's to recall or expand (see EntriesPage.rewound).
        const out = (seq: number) => !!page.rewound?.some(([from, to]) => seq >= from && seq <= to);
        entries.push(...(page.rewound ? page.entries.filter((e) => !out(e.seq)) : page.entries));
        lastSeq = page.lastSeq;
        after = page.nextAfterSeq;
      } while (after !== null && entries.length < limit);
      entries.length = Math.min(entries.length, limit);
      return { entries, lastSeq };
    },
  };
}
