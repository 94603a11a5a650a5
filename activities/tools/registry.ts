/** The worker's tools by name, and the specs offered to the model for an agent's allowance. */
import type { ToolSpec } from '../../agent';
import { type Tool, toolSpec } from './define-tool';

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly specs = new Map<string, ToolSpec>();

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: Tool): void {
    if (this.tools.has(tool.name)) throw new Error(`Tool "${tool.name}" is registered twice.`);
    this.tools.set(tool.name, tool);
    this.specs.set(tool.name, toolSpec(tool));
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Specs for the allowed tools (all when `allowed` is absent); unknown names are skipped. */
  specsFor(allowed?: readonly string[]): ToolSpec[] {
    const names = allowed ?? this.names();
    return names.flatMap((n) => (this.specs.has(n) ? [this.specs.get(n)!] : []));
  }
}
