/** What a secret must not be found in: every string Temporal and the agent keep. */
import type { AgentClient } from '../../client/agent-client';

/** Every string in a raw history (or any value read from Temporal), payload data decoded. */
export function rawText(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (Array.isArray(value)) return value.map(rawText).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(rawText).join('\n');
  return String(value);
}

/**
 * Everything the agent keeps, as text: its raw history as JSON and with payloads decoded (index 1), its
 * history entries, state and snapshot.
 */
export async function keptTexts(agents: AgentClient, agentId: string): Promise<string[]> {
  const raw = await agents.handle(agentId).fetchHistory();
  return [
    JSON.stringify(raw),
    rawText(raw),
    JSON.stringify(await agents.history(agentId)),
    JSON.stringify(await agents.state(agentId)),
    JSON.stringify(await agents.snapshot(agentId)),
  ];
}
