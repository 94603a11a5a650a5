/** What the model sees of a tool (seed 002 ToolSpec). Derived from the tool's zod schema. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}
