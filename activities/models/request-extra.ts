/**
 * `params.extra` as the adapters merge it into a request body: without the fields they own. Configs
 * are refused with such keys (agent-config.ts); this also covers one accepted before they were.
 */
import { RESERVED_EXTRA_KEYS } from '../../agent/index';

export function extraRequestFields(extra: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(extra ?? {}).filter(([key]) => !RESERVED_EXTRA_KEYS.includes(key)));
}
