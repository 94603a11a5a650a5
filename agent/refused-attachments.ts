/**
 * Attachments a provider refused for good (OpenAI's 400 `invalid_image_format`, Anthropic's "Could not
 * process image"). The entry keeps the image (history is lossless), but later model calls leave it out
 * and show the model a note in its place, so one bad image does not fail every later call of the agent.
 * The agent holds the list (in its snapshot as `refusedAttachments`); model calls carry it by reference.
 *
 * @example
 * // the newest input's image was refused: it is left out, the call retried at once
 * const refused = [...agent.refused, ...suspectAttachments(entries, uptoSeq, agent.refused, reason)];
 */
import { z } from 'zod';
import type { HistoryEntry, ModelInputEntry } from './entries';

/** The error code (a ModelError type) of a provider's refusal of an attachment. */
export const ATTACHMENT_REFUSED = 'ModelError.AttachmentRefused';
/** The workflow patch (StepDeps.since) behind leaving refused attachments out: asked only when one is refused. */
export const REFUSED_ATTACHMENTS_CHANGE = 'refused-attachments';
/** At most this many refusals are kept (each names one image of the agent's history). */
export const MAX_REFUSED_ATTACHMENTS = 256;

export const RefusedAttachment = z.object({
  /** The model_input entry that carries it. */
  seq: z.number().int().positive(),
  /** Its place in the entry's `attachments`. */
  index: z.number().int().nonnegative(),
  /** What the provider said (clipped). */
  reason: z.string().max(500),
});
export type RefusedAttachment = z.infer<typeof RefusedAttachment>;
export const RefusedAttachments = z.array(RefusedAttachment).max(MAX_REFUSED_ATTACHMENTS);

/**
 * The attachments a refusal is blamed on: those not yet refused in inputs after the last answered model
 * call (the provider took the older ones), else the newest one not yet refused (the older ones may have
 * gone to another provider). Empty when there is none left to blame.
 */
export function suspectAttachments(
  entries: readonly HistoryEntry[],
  uptoSeq: number,
  refused: readonly RefusedAttachment[],
  reason: string,
): RefusedAttachment[] {
  const isRefused = (seq: number, index: number) => refused.some((r) => r.seq === seq && r.index === index);
  const all: RefusedAttachment[] = [];
  let lastOutput = 0;
  for (const e of entries) {
    if (e.seq > uptoSeq) break;
    if (e.kind === 'model_output') lastOutput = e.seq;
    if (e.kind !== 'model_input') continue;
    (e.attachments ?? []).forEach((_, index) => {
      if (!isRefused(e.seq, index)) all.push({ seq: e.seq, index, reason: reason.slice(0, 500) });
    });
  }
  const fresh = all.filter((a) => a.seq > lastOutput);
  if (fresh.length) return fresh;
  return all.length ? [all[all.length - 1]] : [];
}

/** The note the model reads in place of a refused attachment. */
export function refusalNote(entry: ModelInputEntry, refusal: RefusedAttachment): string {
  const name = entry.attachments?.[refusal.index]?.name;
  return `[image ${name ? name : `#${refusal.index + 1}`} was refused by the provider and is left out: ${refusal.reason}]`;
}

/** The input as later model calls see it: refused attachments left out, a note for each after its text. */
export function withoutRefused(entry: ModelInputEntry, refused: readonly RefusedAttachment[] | undefined): ModelInputEntry {
  const mine = refused?.filter((r) => r.seq === entry.seq) ?? [];
  if (!mine.length || !entry.attachments?.length) return entry;
  const attachments = entry.attachments.filter((_, i) => !mine.some((r) => r.index === i));
  const notes = mine.map((r) => refusalNote(entry, r)).join('\n');
  const sections = entry.sections.length
    ? entry.sections.map((s, i) => (i === entry.sections.length - 1 ? { ...s, content: `${s.content}\n\n${notes}` } : s))
    : [{ title: 'Input', content: notes }];
  const { attachments: _all, ...rest } = entry;
  return { ...rest, sections, ...(attachments.length ? { attachments } : {}) };
}
