/**
 * The REST schemas of fork and compare (issue 30): request bodies and responses, each checked at compile
 * time against the client's type it describes (as api-schemas.ts does), so neither changes without the other.
 */
import { z } from 'zod';
import { AgentId, ForkedFrom, ModelName } from '../agent/index';
import type { CompareResult } from '../client/agent-compare';
import type { ForkResult, ForkSummary } from '../client/agent-fork';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agree = <T extends true>(): T | undefined => undefined;

const Seq = z.number().int().positive();
const Tools = z.array(z.string().min(1).max(128)).max(512);
const Instruction = z
  .string()
  .max(64 * 1024)
  .describe("The fork's system instruction, recorded as an entry right after the fork point (when it differs from the one in force there).");

export const ForkBody = z
  .object({
    at: Seq.describe("The entry to fork at: a turn's end (the fork waits for input) or an input (model_input: the fork runs its turn again)."),
    as: AgentId.describe("The new agent's id."),
    model: ModelName.optional(),
    systemInstruction: Instruction.optional(),
    tools: Tools.optional(),
  })
  .strict()
  .meta({ id: 'ForkAgent' });

export const ForkResultSchema = z
  .object({
    agentId: z.string(),
    forkedFrom: ForkedFrom,
    point: z.enum(['turn_end', 'model_input']),
    sharedSegments: z.number().describe('Archive segments the fork shares with its source (the same blobs, not copies).'),
    carriedEntries: z.number().describe('Entries the fork carries itself: those after the shared segments, through the fork point.'),
  })
  .meta({ id: 'ForkResult' });
agree<Same<z.infer<typeof ForkResultSchema>, ForkResult>>();

export const ForkList = z
  .object({
    forks: z.array(z.object({ agentId: z.string(), status: z.string(), startTime: z.string(), forkedFrom: ForkedFrom.nullable() })),
  })
  .meta({ id: 'ForkList' });
agree<Same<z.infer<typeof ForkList>['forks'][number], ForkSummary>>();

export const CompareBody = z
  .object({
    at: Seq.describe('An input (a model_input entry): each fork runs its turn again.'),
    models: z.array(ModelName).min(1).max(8),
    prefix: AgentId.optional().describe(
      'The forks are named `<prefix>.<provider-model>` (default `<id>.<at>`): another compare at the same point needs another.',
    ),
    systemInstruction: Instruction.optional(),
    tools: Tools.optional(),
  })
  .strict()
  .meta({ id: 'CompareModels' });

const CompareResultSchema = z.object({
  model: z.string(),
  agentId: z.string().describe('The fork that ran the turn (an agent like any other).'),
  status: z.enum(['answered', 'ignored', 'error', 'stopped', 'reset', 'interrupted', 'asked', 'continued', 'archived']),
  text: z.string(),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cachedInputTokens: z.number(), costUsd: z.number().nullable(), modelCalls: z.number() }),
  durationMs: z.number().nullable(),
});
agree<Same<z.infer<typeof CompareResultSchema>, CompareResult>>();
export const CompareResults = z.object({ results: z.array(CompareResultSchema) }).meta({ id: 'CompareResults' });
