/** The worker's tools by name, and the specs offered to the model for an agent's allowance. */
import { MemoryNotebookWidget, TIMER_TOOLS, type ToolSpec, zodToolSpec } from '../../agent';
import { type Tool, toolSpec } from './define-tool';

/** Widget and timer tools run inside the workflow; their specs are offered like any other tool. */
const WORKFLOW_TOOL_SPECS: ToolSpec[] = [...new MemoryNotebookWidget().tools, ...TIMER_TOOLS].map((t) =>
  zodToolSpec(t.name, t.description, t.parameters),
);

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly specs = new Map<string, ToolSpec>();

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: Tool): void {
    if (this.tools.has(tool.name)) throw new Error(`Tool "${tool.name}" is registered twice.`);
    if (WORKFLOW_TOOL_SPECS.some((s) => s.name === tool.name)) throw new Error(`"${tool.name}" is a built-in tool that runs in the workflow.`);
    this.tools.set(tool.name, tool);
    this.specs.set(tool.name, toolSpec(tool));
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Specs for the allowed tools, in-workflow tools first (all when `allowed` is absent); unknown names are skipped. */
  specsFor(allowed?: readonly string[]): ToolSpec[] {
    const inWorkflow = WORKFLOW_TOOL_SPECS.filter((s) => !allowed || allowed.includes(s.name));
    const names = allowed ?? this.names();
    return [...inWorkflow, ...names.flatMap((n) => (this.specs.has(n) ? [this.specs.get(n)!] : []))];
  }
}
