/** What the model sees of a tool (seed 002 ToolSpec), derived from the tool's zod schema. */
import { z } from 'zod';

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export function zodToolSpec(name: string, description: string, parameters: z.ZodType): ToolSpec {
  const schema = z.toJSONSchema(parameters, { target: 'draft-2020-12' }) as Record<string, unknown>;
  delete schema.$schema;
  return { name, description, parameters: schema };
}

export const ToolSpecSchema = z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) });

/**
 * The tools of MCP servers an agent was offered, as discovered by a model call (an activity) and
 * recorded in the agent's state when they change: in history once per change, carried across
 * continue-as-new, shown by `state`. `digest` identifies the list; a model call is told the agent's
 * digest and answers with a new catalog only when the worker's list (within the agent's allowance) differs.
 */
export const ToolCatalog = z.object({ digest: z.string().min(1).max(128), tools: z.array(ToolSpecSchema).max(1024) });
export type ToolCatalog = z.infer<typeof ToolCatalog>;
