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
  fill(dl, rows.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, typeof value === 'number' ? value.toLocaleString() : String(value ?? 0))]));
}

export function renderTasks(list, tasks = []) {
  fill(
    list,
    tasks.length
      ? tasks.map((t) => el('li', { class: `task ${t.status}`, title: t.status }, el('span', { class: 'mark' }, TASK_MARK[t.status] ?? '?'), ` ${t.id}. `, String(t.title)))
      : el('li', { class: 'empty' }, 'No tasks.'),
  );
}

export function renderNotebook(pre, text) {
  fill(pre, text ? String(text) : '(empty)');
  pre.classList.toggle('empty', !text);
}

/** The badge beside the agent's name: its run state and what it waits for. */
export function renderRunState(badge, state) {
  if (!state?.runState) return fill(badge);
  const waits = { input: 'idle', approval: 'waits for approval', error: 'blocked by an error' }[state.blockedOn] ?? 'working';
  fill(badge, `${state.runState} · ${state.stopping ? 'stopping' : waits}`);
  badge.dataset.blockedOn = state.blockedOn ?? 'working';
}
