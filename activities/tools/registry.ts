/**
 * The one list of tools a worker offers, whatever their source: the built-in workspace tools, the
 * user's `defineTool` tools, and (later) MCP servers' tools and sub-agents — each added as a ToolSource —
 * plus the tools that run inside the workflow (widget and timer tools), listed here so they are
 * offered like any other. An agent's allowance (names and `prefix*` patterns, see agent/tool-allowance)
 * selects among them; the executor runs any of them by name, without knowing its kind.
 */
import { type ToolSpec, toolAllowed, zodToolSpec } from '../../agent/index';
import { inWorkflowTools } from '../../agent/tool-kinds/index';
import { ARCHIVE_TOOLS_SOURCE } from './archive-tools';
import { type Tool, toolSpec } from './define-tool';

/** Where tools come from, for listing and error messages: `builtin`, `user`, `mcp:<server>`… */
export interface ToolSource {
  name: string;
  tools: readonly Tool[];
}

/** Where a registered tool came from; `workflow` for widget and timer tools. */
export interface ListedTool {
  name: string;
  description: string;
  source: string;
}

/** Widget, timer and ask_user tools run inside the workflow (agent/tool-kinds); their specs are offered like any other tool. */
const WORKFLOW_TOOL_SPECS: ToolSpec[] = inWorkflowTools().map((t) => zodToolSpec(t.name, t.description, t.parameters));

export class ToolRegistry {
  private readonly tools = new Map<string, { tool: Tool; spec: ToolSpec; source: string }>();

  /** `tools`, if given, are added as the source `user` (kept for callers that pass a plain list). */
  constructor(tools: readonly Tool[] = [], sources: readonly ToolSource[] = []) {
    for (const source of sources) this.add(source);
    for (const tool of tools) this.register(tool, 'user');
  }

  /** Adds every tool of a source; a name taken by another tool is refused, saying by which source. */
  add(source: ToolSource): void {
    for (const tool of source.tools) this.register(tool, source.name);
  }

  /** Puts a source's current tools in place of its previous ones (an MCP server's changed tool list). */
  replace(source: ToolSource): void {
    for (const [name, entry] of this.tools) if (entry.source === source.name) this.tools.delete(name);
    this.add(source);
  }

  register(tool: Tool, source = 'user'): void {
    const taken = this.tools.get(tool.name);
    if (taken) throw new Error(`Tool "${tool.name}" is registered twice (by ${taken.source} and by ${source}).`);
    if (WORKFLOW_TOOL_SPECS.some((s) => s.name === tool.name)) throw new Error(`"${tool.name}" is a built-in tool that runs in the workflow.`);
    this.tools.set(tool.name, { tool, spec: toolSpec(tool), source });
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name)?.tool;
  }

  /** Names of the tools this worker runs (not the in-workflow ones). */
  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Every tool an agent can be given, with its source. */
  list(): ListedTool[] {
    return [
      ...WORKFLOW_TOOL_SPECS.map((s) => ({ name: s.name, description: s.description, source: 'workflow' })),
      ...[...this.tools.values()].map(({ tool, source }) => ({ name: tool.name, description: tool.description, source })),
    ];
  }

  /** Names of this worker's tools within an allowance (absent = all). */
  allowedNames(allowance?: readonly string[]): string[] {
    return this.names().filter((n) => toolAllowed(allowance, n));
  }

  /** Specs of the tools within an allowance whose source's name starts with `prefix` (e.g. `mcp:`), by name. */
  specsFromSources(prefix: string, allowance?: readonly string[]): ToolSpec[] {
    return this.allowedNames(allowance)
      .filter((n) => this.tools.get(n)!.source.startsWith(prefix))
      .sort()
      .map((n) => this.tools.get(n)!.spec);
  }

  /**
   * Specs for the tools within an allowance (all when absent), in-workflow tools first. The archive's
   * tools (`recall`, `expand`) only for an agent with a past out of its context (`archived`), so the
   * requests of every other agent stay as they were.
   */
  specsFor(allowance?: readonly string[], options: { archived?: boolean } = {}): ToolSpec[] {
    const inWorkflow = WORKFLOW_TOOL_SPECS.filter((s) => toolAllowed(allowance, s.name));
    const offered = this.allowedNames(allowance).filter((n) => options.archived || this.tools.get(n)!.source !== ARCHIVE_TOOLS_SOURCE);
    return [...inWorkflow, ...offered.map((n) => this.tools.get(n)!.spec)];
  }
}
