/**
 * A worker's remote A2A agents: one connection each, their cards read at start (a card that cannot be
 * read is logged and read again at the first call — the tool is offered anyway, so an agent's call never
 * meets a missing tool because the remote was down when the worker started), each a ToolSource `a2a:<name>`.
 */
import type { ToolRegistry, ToolSource } from '../tools/registry';
import { A2aAgentConnection } from './a2a-connection';
import { a2aTool } from './a2a-tool';
import type { A2aAgentConfig } from './config';

export interface A2aAgentStatus {
  name: string;
  cardUrl: string;
  connected: boolean;
  /** The card's name and skills, when it was read. */
  agentName?: string;
  skills?: string[];
  error?: string;
}

export class A2aAgents {
  readonly connections: A2aAgentConnection[];
  private readonly errors = new Map<string, string>();

  constructor(
    configs: readonly A2aAgentConfig[],
    private readonly log?: { info(m: string): void; warn(m: string): void },
  ) {
    const names = new Set<string>();
    for (const c of configs) {
      if (names.has(c.name)) throw new Error(`A2A agent "${c.name}" is configured twice.`);
      names.add(c.name);
    }
    this.connections = configs.map((c) => new A2aAgentConnection(c));
  }

  /** Reads every card at once; a failure is logged (without the token) and read again at the first call. */
  async discover(): Promise<void> {
    await Promise.all(
      this.connections.map(async (c) => {
        try {
          await c.connect();
          this.errors.delete(c.name);
          this.log?.info(`A2A agent "${c.name}": ${c.card?.name ?? '?'}, ${c.card?.skills.length ?? 0} skills`);
        } catch (err) {
          this.errors.set(c.name, (err as Error).message);
          this.log?.warn(`A2A agent "${c.name}": ${(err as Error).message}; its card is read again at the first call`);
        }
      }),
    );
  }

  sources(): ToolSource[] {
    return this.connections.map((c) => ({ name: `a2a:${c.name}`, tools: [a2aTool(c)] }));
  }

  attach(registry: ToolRegistry): void {
    for (const source of this.sources()) registry.add(source);
  }

  status(): A2aAgentStatus[] {
    return this.connections.map((c) => ({
      name: c.name,
      cardUrl: c.config.cardUrl,
      connected: c.card !== undefined,
      ...(c.card ? { agentName: c.card.name, skills: c.card.skills.map((s) => s.name || s.id) } : {}),
      ...(this.errors.has(c.name) ? { error: this.errors.get(c.name) } : {}),
    }));
  }
}
