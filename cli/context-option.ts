/** `--context-policy`, `--compaction-model`, `--compact-at`, `--cache-ttl` → the agent's context policy (see agent/agent-config.ts). */
import { ContextPolicy } from '../agent/agent-config';
import { UserError } from '../common/user-error';
import { checkModel } from './model-check';
import type { Values } from './argv';

const str = (v: Values, k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);

/** The options given, as a checked policy over `current` (configure keeps what is not given); undefined when none is given. */
export function contextOption(v: Values, current: ContextPolicy = {}): ContextPolicy | undefined {
  const policy = str(v, 'context-policy');
  const model = str(v, 'compaction-model');
  const at = str(v, 'compact-at');
  const ttl = str(v, 'cache-ttl');
  if (policy === undefined && model === undefined && at === undefined && ttl === undefined) return undefined;
  const raw = {
    ...current,
    ...(policy !== undefined ? { policy } : {}),
    // '' removes it: summaries by the agent's own model again.
    ...(model !== undefined ? { compactionModel: model === '' ? undefined : checkModel(model) } : {}),
    ...(at !== undefined ? { compactAt: Number(at) } : {}),
    ...(ttl !== undefined ? { cacheTtl: ttl === '' ? undefined : ttl } : {}),
  };
  const parsed = ContextPolicy.safeParse(Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)));
  if (!parsed.success) {
    const names: Record<string, string> = {
      policy: '--context-policy',
      compactionModel: '--compaction-model',
      compactAt: '--compact-at',
      cacheTtl: '--cache-ttl',
    };
    throw new UserError(`Bad context option: ${parsed.error.issues.map((i) => `${names[String(i.path[0])] ?? i.path.join('.')}: ${i.message}`).join('; ')}.`);
  }
  return parsed.data;
}
