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
