/** The side panels, from the agent's state (STATE_SNAPSHOT / STATE_DELTA): usage and cost, tasks, notebook. */
import { el, fill } from './dom.js';

const TASK_MARK = { pending: '○', in_progress: '◐', done: '●', cancelled: '✕' };

export function renderUsage(dl, usage) {
  if (!usage) return fill(dl);
  const rows = [
    ['Model calls', usage.modelCalls],
    ['Input tokens', usage.inputTokens],
    ['  of them cached', usage.cachedInputTokens],
    ['Output tokens', usage.outputTokens],
    ['Cost', usage.costUsd ? `$${usage.costUsd.toFixed(4)}` : 'not priced'],
  ];
  fill(
    dl,
    rows.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, typeof value === 'number' ? value.toLocaleString() : String(value ?? 0))]),
  );
}

export function renderTasks(list, tasks = []) {
  fill(
    list,
    tasks.length
      ? tasks.map((t) =>
          el('li', { class: `task ${t.status}`, title: t.status }, el('span', { class: 'mark' }, TASK_MARK[t.status] ?? '?'), ` ${t.id}. `, String(t.title)),
        )
      : el('li', { class: 'empty' }, 'No tasks.'),
  );
}

/** The agent's tool rules (approval policy) in words, first match first; `livecontext policy` changes them. */
export function renderToolRules(list, rules = []) {
  fill(list, rules.length ? rules.map((r) => el('li', { class: 'rule' }, String(r))) : el('li', { class: 'empty' }, 'None: each tool asks as it was defined.'));
}

export function renderNotebook(pre, text) {
  pre.dataset.text = text ? String(text) : '';
  fill(pre, text ? String(text) : '(empty)');
  pre.classList.toggle('empty', !text);
}

/** What a budget code stops (agent/budgets.ts BudgetCode), for people. */
const BUDGET_NAMES = {
  'Budget.TurnModelCalls': 'model calls per turn',
  'Budget.TurnTokens': 'tokens per turn',
  'Budget.TurnCost': 'cost per turn',
  'Budget.DayTokens': 'tokens per day (UTC)',
  'Budget.DayCost': 'cost per day (UTC)',
  'Budget.ConsecutiveToolFailures': 'failed tool calls in a row',
};

/** For an error code `Budget.*`: the budget it names, in words; else null. */
export function budgetName(code) {
  if (typeof code !== 'string' || !code.startsWith('Budget.')) return null;
  return BUDGET_NAMES[code] ?? code.slice('Budget.'.length);
}

/**
 * An agent's run state in the gateway's words (`stateWord`, `stateDetail`: the vocabulary the CLI and
 * the MCP tools use too, client/state-view.ts): `waiting for approval · delete_file`.
 */
export function runStateText(state) {
  if (!state?.stateWord) return '';
  return state.stateDetail ? `${state.stateWord} · ${state.stateDetail}` : state.stateWord;
}

/** The badge beside the agent's name: its run state and what goes with it. */
export function renderRunState(badge, state) {
  if (!state?.stateWord) return fill(badge);
  fill(badge, runStateText(state));
  badge.dataset.blockedOn = state.blockedOn ?? 'working';
}
