/**
 * A model that streams its answer at a steady pace, as a real model streams tokens: `paced:<seconds>s`
 * answers `words` words spread over that many seconds (20 words a second), so streaming costs can be
 * measured on answers of a known length and duration. The text names the call (`step`), so a reader can
 * tell one answer from another. `paced:<seconds>s+<ms>ms` first waits that long, as a provider's time to
 * first token, and tells `onPacedFirstToken` listeners when its first text goes out (bench/first-token.ts).
 */
import type { ContextMessage, MessageDelta, ToolSpec } from '../agent/index';
import { DeltaSequencer, unwrap } from '../agent/index';
import { BaseModel } from '../activities/models/base-model';
import type { ModelProvider } from '../activities/models/model-router';

const WORDS_PER_SECOND = 20;

/** Told (agent id, performance.now()) when a paced model yields its first text: the provider's first token. */
export const pacedFirstTokenListeners = new Set<(agentId: string, at: number) => void>();

export const pacedModels: ModelProvider = {
  id: 'paced',
  create(modelId: string) {
    const named = /^(\d+(?:\.\d+)?)s(?:\+(\d+)ms)?$/.exec(modelId);
    if (!named) throw new Error(`A paced model is named by its duration, e.g. "paced:20s" or "paced:2s+400ms" (got "${modelId}").`);
    return new PacedModel(modelId, Number(named[1]), Number(named[2] ?? 0));
  },
};

/** The answer `paced:<seconds>s` gives at step `step` (what history must hold). */
export function pacedAnswer(seconds: number, step: number): string {
  const words = Math.max(1, Math.round(seconds * WORDS_PER_SECOND));
  return Array.from({ length: words }, (_, i) => `w${step}.${i}`).join(' ');
}

class PacedModel extends BaseModel {
  constructor(
    modelId: string,
    private readonly seconds: number,
    /** Time to first token: how long the first word waits. */
    private readonly firstTokenMs: number,
  ) {
    super('paced', 'paced', modelId);
  }

  async *stream(
    messages: readonly ContextMessage[],
    _tools: readonly ToolSpec[],
    _system: string | undefined,
    options: { signal?: AbortSignal; requestMetadata?: { sessionId?: string } },
  ): AsyncIterable<MessageDelta> {
    const step = messages.filter((m) => unwrap(m).kind === 'model_output').length;
    const words = pacedAnswer(this.seconds, step).split(' ');
    const gapMs = (this.seconds * 1000) / words.length;
    const d = new DeltaSequencer();
    const started = Date.now() + this.firstTokenMs;
    yield d.next({ kind: 'start', modelId: this.config.modelId });
    for (const [i, word] of words.entries()) {
      // Paced against the start, so a slow event loop does not stretch the answer.
      const wait = started + i * gapMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (options.signal?.aborted) throw new Error('aborted');
      if (i === 0) for (const told of pacedFirstTokenListeners) told(options.requestMetadata?.sessionId ?? '', performance.now());
      yield d.next({ kind: 'text', text: i ? ` ${word}` : word });
    }
    yield d.next({ kind: 'usage', usage: { inputTokens: 10, outputTokens: words.length, totalTokens: 10 + words.length } });
    yield d.next({ kind: 'done', finishReason: 'stop' });
  }
}
