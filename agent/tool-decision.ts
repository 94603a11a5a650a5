/** A person's decision on a tool call, as updates and signals carry it: checked the same way for both. */
import { z } from 'zod';
import { InputRejectedError } from './errors';
import { undecodableReason } from './undecodable';

/** A door's name: lowercase letters, digits, `-` and `_`. */
export const Door = z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/, 'a door is a short lowercase name such as "rest" or "mcp"');

export const ToolDecision = z
  .object({
    toolCallId: z.string().min(1),
    /** Exactly `true` or `false`: a string such as "false" is refused, never read as truthy. */
    approved: z.boolean(),
    /** Shown to the model when denied. */
    reason: z.string().max(4096).optional(),
    /** Who decided (recorded). */
    by: z.string().max(200).optional(),
    /** Through which door the decision came (`cli`, `rest`, `mcp`, `page`, `a2a`…; recorded). */
    door: Door.optional(),
    /** With `approved`: allow this tool in this agent from now on ("don't ask again"; a `tool_rules` entry). */
    remember: z.boolean().optional(),
  })
  .strict();
export type ToolDecision = z.infer<typeof ToolDecision>;

/** Validates a decision; throws InputRejectedError saying what a decision looks like. */
export function parseToolDecision(raw: unknown): ToolDecision {
  const undecodable = undecodableReason(raw);
  if (undecodable !== undefined) throw new InputRejectedError('UNDECODABLE_INPUT', `The decision's payload could not be decoded (${undecodable}).`);
  const parsed = ToolDecision.safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'decision'}: ${i.message}`).join('; ');
    throw new InputRejectedError('BAD_DECISION', `A decision is {"toolCallId": "...", "approved": true|false, "reason"?: "..."} (${why}).`);
  }
  return parsed.data;
}
