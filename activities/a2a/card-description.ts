/**
 * The description the model reads for a remote A2A agent's tool, from its card: what the agent says it
 * is (or the configured override) and its skills, by name and description. A card that could not be read
 * at start-up still gives a tool (the card is read again at the first call), described by what is known.
 */
import type { AgentCard } from '@a2a-js/sdk';

/** A card's text is the remote's to write: the model is not given more than this of it. */
export const MAX_DESCRIPTION_CHARS = 2000;

export function a2aToolDescription(name: string, card: AgentCard | undefined, override?: string): string {
  if (!card) return `${override ?? 'A remote agent'} (A2A agent "${name}"; send it a message, get its answer)`;
  const about = override ?? (card.description.trim() || `The remote agent ${card.name}`);
  const skills = (card.skills ?? [])
    .map((s) => [s.name || s.id, s.description?.trim()].filter(Boolean).join(': '))
    .filter(Boolean)
    .map((s) => `- ${s}`);
  const text = [about, ...(skills.length ? ['Skills:', ...skills] : []), `(A2A agent "${card.name || name}"; send it a message, get its answer)`].join('\n');
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : text;
}
