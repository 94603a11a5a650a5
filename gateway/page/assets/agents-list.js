/**
 * The agents list: searchable by id and model, filterable by run state. Each agent's state is the
 * gateway's word for it (`stateWord`, the vocabulary every view uses). The list is polled every
 * REFRESH_MS; the agent that is open takes its word from its event stream instead (live), so the list
 * and the header above the conversation never say different things.
 */
import { api } from './api.js';
import { el, fill } from './dom.js';

/** The words agents are listed under while they run (client/state-view.ts RunStateWords), offered first in the filter. */
const RUN_STATES = ['waiting for input', 'working', 'waiting for approval', 'waiting for a resolution', 'blocked by an error'];
const REFRESH_MS = 2000;

export class AgentsList {
  /** @param {{ list: HTMLElement, search: HTMLInputElement, state: HTMLSelectElement, error: HTMLElement, onSelect(id: string): void }} parts */
  constructor(parts) {
    Object.assign(this, parts);
    this.agents = [];
    this.selected = null;
    /** The open agent's word from its stream: `{ agentId, word, model }`. */
    this.live = null;
    this.loading = false;
    this.search.addEventListener('input', () => this.render());
    this.state.addEventListener('change', () => this.render());
  }

  /** Loads the list now and every REFRESH_MS (a load still under way is not doubled). */
  start() {
    void this.load();
    clearInterval(this.timer);
    this.timer = setInterval(() => void (this.loading || this.load()), REFRESH_MS);
  }

  async load() {
    this.loading = true;
    try {
      const body = await api('GET', '/agents?all=1');
      this.agents = Array.isArray(body) ? body : (body?.agents ?? []);
      fill(this.error);
    } catch (err) {
      fill(this.error, err.message);
    } finally {
      this.loading = false;
    }
    this.render();
  }

  select(agentId) {
    this.selected = agentId;
    if (this.live?.agentId !== agentId) this.live = null;
    this.render();
  }

  /** The open agent's state as its stream says it (a running agent only: an ended one reads as listed). */
  setLive(agentId, word, model) {
    const next = word ? { agentId, word, model } : null;
    if (next?.word === this.live?.word && next?.model === this.live?.model && next?.agentId === this.live?.agentId) return;
    this.live = next;
    this.render();
  }

  /** What the list says of an agent. */
  wordOf(a) {
    const running = !a.status || a.status === 'RUNNING';
    if (running && this.live && this.live.agentId === a.agentId) return this.live.word;
    return a.stateWord ?? (running ? 'running' : String(a.status).toLowerCase());
  }

  modelOf(a) {
    return this.live && this.live.agentId === a.agentId ? (this.live.model ?? a.model) : a.model;
  }

  render() {
    this.renderStates();
    const words = this.search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const state = this.state.value;
    const shown = this.agents.filter((a) => {
      const text = `${a.agentId} ${this.modelOf(a) ?? ''} ${this.wordOf(a)}`.toLowerCase();
      return (!state || this.wordOf(a) === state) && words.every((w) => text.includes(w));
    });
    fill(
      this.list,
      shown.map((a) =>
        el(
          'li',
          { class: a.agentId === this.selected ? 'selected' : '' },
          el(
            'button',
            { type: 'button', class: 'agent', 'data-agent-id': a.agentId, 'data-state': this.wordOf(a), onclick: () => this.onSelect(a.agentId) },
            el('span', { class: 'agent-id' }, a.agentId),
            el('span', { class: 'agent-meta' }, el('span', { class: 'agent-state' }, this.wordOf(a)), this.modelOf(a) ? ` · ${this.modelOf(a)}` : ''),
          ),
        ),
      ),
    );
    if (!shown.length) this.list.append(el('li', { class: 'empty' }, this.agents.length ? 'No agent matches.' : 'No agents yet.'));
  }

  /** The run-state filter offers the run states and every other state present. */
  renderStates() {
    const present = new Set([...RUN_STATES, ...this.agents.map((a) => this.wordOf(a))]);
    const have = new Set([...this.state.options].map((o) => o.value));
    for (const s of present) if (!have.has(s)) this.state.append(el('option', { value: s }, s));
  }
}
