/** The agents list: searchable by id and model, filterable by run state (or by status once closed). */
import { api } from './api.js';
import { el, fill } from './dom.js';

/** The words agents are listed under while they run (search attribute LivecontextRunState, see agent/run-state.ts restLabel). */
const RUN_STATES = ['Working', 'WaitingInput', 'WaitingApproval', 'BlockedOnError'];
const REFRESH_MS = 5000;

/** What the filter sees of an agent: its run state while it runs, else its workflow status. */
const stateOf = (a) => (a.status && a.status !== 'RUNNING' && a.status !== 'Running' ? a.status : (a.runState ?? 'Running'));

export class AgentsList {
  /** @param {{ list: HTMLElement, search: HTMLInputElement, state: HTMLSelectElement, error: HTMLElement, onSelect(id: string): void }} parts */
  constructor(parts) {
    Object.assign(this, parts);
    this.agents = [];
    this.selected = null;
    this.search.addEventListener('input', () => this.render());
    this.state.addEventListener('change', () => this.render());
  }

  /** Loads the list now and every few seconds. */
  start() {
    void this.load();
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.load(), REFRESH_MS);
  }

  async load() {
    try {
      const body = await api('GET', '/agents?all=1');
      this.agents = Array.isArray(body) ? body : (body?.agents ?? []);
      fill(this.error);
    } catch (err) {
      fill(this.error, err.message);
    }
    this.render();
  }

  select(agentId) {
    this.selected = agentId;
    this.render();
  }

  render() {
    this.renderStates();
    const words = this.search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const state = this.state.value;
    const shown = this.agents.filter((a) => {
      const text = `${a.agentId} ${a.model ?? ''} ${stateOf(a)}`.toLowerCase();
      return (!state || stateOf(a) === state) && words.every((w) => text.includes(w));
    });
    fill(
      this.list,
      shown.map((a) =>
        el(
          'li',
          { class: a.agentId === this.selected ? 'selected' : '' },
          el(
            'button',
            { type: 'button', class: 'agent', 'data-agent-id': a.agentId, onclick: () => this.onSelect(a.agentId) },
            el('span', { class: 'agent-id' }, a.agentId),
            el('span', { class: 'agent-meta' }, `${stateOf(a)}${a.model ? ` · ${a.model}` : ''}`),
          ),
        ),
      ),
    );
    if (!shown.length) this.list.append(el('li', { class: 'empty' }, this.agents.length ? 'No agent matches.' : 'No agents yet.'));
  }

  /** The run-state filter offers the run states and every other state or status present. */
  renderStates() {
    const present = new Set([...RUN_STATES, ...this.agents.map(stateOf)]);
    const have = new Set([...this.state.options].map((o) => o.value));
    for (const s of present) if (!have.has(s)) this.state.append(el('option', { value: s }, s));
  }
}
