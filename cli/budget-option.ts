/** `--budget name=value` (repeatable) → the agent's budgets (see agent/budgets.ts). */
import { Budgets } from '../agent/budgets';
import { UserError } from '../common/user-error';

export function budgetsOption(values: unknown): Budgets | undefined {
  const items = [values ?? []].flat().filter((v): v is string => typeof v === 'string');
  if (!items.length) return undefined;
  const raw: Record<string, number> = {};
  for (const item of items) {
    const m = /^([A-Za-z]+)=([0-9.]+)$/.exec(item.trim());
    if (!m) throw new UserError(`--budget takes name=number, e.g. turnModelCalls=100, not "${item}".`);
    raw[m[1]] = Number(m[2]);
  }
  const parsed = Budgets.safeParse(raw);
  if (!parsed.success) {
    const names = Object.keys(Budgets.shape).join(', ');
    throw new UserError(`Bad --budget: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'budget'}: ${i.message}`).join('; ')} (budgets: ${names}).`);
  }
  return parsed.data;
}
