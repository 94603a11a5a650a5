/** The worker's tools by name, and the specs offered to the model for an agent's allowance. */
import { MemoryNotebookWidget, type ToolSpec, zodToolSpec } from '../../agent';
import { type Tool, toolSpec } from './define-tool';

/** Widget tools run inside the workflow; their specs are offered like any other tool. */
const WIDGET_TOOL_SPECS: ToolSpec[] = new MemoryNotebookWidget().tools.map((t) => zodToolSpec(t.name, t.description, t.parameters));

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly specs = new Map<string, ToolSpec>();

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: Tool): void {
    if (this.tools.has(tool.name)) throw new Error(`Tool "${tool.name}" is registered twice.`);
    if (WIDGET_TOOL_SPECS.some((s) => s.name === tool.name)) throw new Error(`"${tool.name}" is a built-in widget tool name.`);
    this.tools.set(tool.name, tool);
    this.specs.set(tool.name, toolSpec(tool));
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Specs for the allowed tools, widget tools first (all when `allowed` is absent); unknown names are skipped. */
  specsFor(allowed?: readonly string[]): ToolSpec[] {
    const widget = WIDGET_TOOL_SPECS.filter((s) => !allowed || allowed.includes(s.name));
    const names = allowed ?? this.names();
    return [...widget, ...names.flatMap((n) => (this.specs.has(n) ? [this.specs.get(n)!] : []))];
  }
}
