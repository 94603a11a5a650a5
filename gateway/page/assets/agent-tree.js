/**
 * The tree of agents around the one shown: the agent that delegated to it (a link up), and the
 * sub-agents it delegated to, each with what the parent knows of it (working, answered, failed) and the
 * child's own run state, read from GET /agents/<child>; a child's own children follow, as deep as
 * delegation goes. Each agent is a link (#agent=<id>) that opens it like any other. Children come from
 * the state (those working for the current batch of tool calls) and from history (those that answered:
 * their results name them in `metadata.sub_agent`). Every id and word is put in as text.
 */
import { agentPath, api } from './api.js';
import { el, fill } from './dom.js';
import { runStateText } from './panels.js';

const REFRESH_MS = 3000;
/** Children shown per agent (the newest), and agents asked about per refresh, so a busy tree stays cheap. */
const CHILDREN_SHOWN = 20;
const NODES_FETCHED = 40;
/** Delegation goes 3 levels deep (agent/sub-agents.ts MAX_SUB_AGENT_DEPTH). */
const MAX_DEPTH = 3;

const CALL_WORD = { Running: 'working', Success: 'answered', Failed: 'failed', Skipped: 'cut short' };

/** `#agent=<id>`: what opens an agent on this page. */
export const agentHref = (agentId) => `#agent=${encodeURIComponent(agentId)}`;

/**
 * Children of an agent, oldest first, by tool call: `{ toolCallId, agentId, profile, status }`, from its
 * history entries (answered calls) and its state's `subAgents` (calls of the batch in progress, which win).
 */
export function childrenOf(entries = [], subAgents = []) {
  const byCall = new Map();
  for (const e of entries) {
    if (e.kind !== 'tool_results') continue;
    for (const r of e.results ?? []) {
      const agentId = r.metadata?.sub_agent;
      if (typeof agentId !== 'string' || !agentId) continue;
      byCall.set(r.toolCallId, { toolCallId: r.toolCallId, agentId, profile: String(r.toolName ?? '').replace(/^ask_/, ''), status: r.status });
    }
  }
  for (const c of subAgents ?? []) byCall.set(c.toolCallId, { toolCallId: c.toolCallId, agentId: c.agentId, profile: c.profile, status: c.status });
  return [...byCall.values()];
}

export class AgentTree {
  /**
   * @param {HTMLElement} root the tree's container (hidden while the agent is in no tree)
   * @param {{ onChildren?(children: Array<{ toolCallId: string, agentId: string }>): void }} [hooks]
   */
  constructor(root, hooks = {}) {
    this.root = root;
    this.hooks = hooks;
    this.reset(null);
  }

  /** Another agent is shown. */
  reset(agentId) {
    this.agentId = agentId;
    this.state = {};
    this.entries = [];
    this.states = new Map(); // agentId → its fetched status, or { error }
    clearTimeout(this.timer);
    this.generation = (this.generation ?? 0) + 1;
    this.render();
  }

  /** The shown agent's state (from the event stream) or history (for the timeline) changed. */
  update(state, entries) {
    this.state = state ?? {};
    this.entries = entries ?? this.entries;
    this.render();
    this.refreshSoon(150);
  }

  children() {
    return childrenOf(this.entries, this.state.subAgents).slice(-CHILDREN_SHOWN);
  }

  refreshSoon(delayMs) {
    clearTimeout(this.timer);
    if (!this.agentId) return;
    this.timer = setTimeout(() => void this.refresh(), delayMs);
  }

  /** Reads each child's status (and its children's, down the tree); again a little later while any works. */
  async refresh() {
    const generation = this.generation;
    const seen = new Set();
    let busy = false;
    const visit = async (children, depth) => {
      for (const c of children) {
        // A child being started has no id yet (the parent records the call first).
        if (!c.agentId || seen.size >= NODES_FETCHED || seen.has(c.agentId)) continue;
        seen.add(c.agentId);
        let s;
        try {
          s = await api('GET', agentPath(c.agentId));
        } catch (err) {
          s = { error: err.message };
        }
        if (generation !== this.generation) return;
        this.states.set(c.agentId, s);
        if (c.status === 'Running' || (s.runState && s.blockedOn !== 'input')) busy = true;
        if (depth < MAX_DEPTH && s.subAgents?.length) await visit(s.subAgents, depth + 1);
      }
    };
    await visit(this.children(), 1);
    if (generation !== this.generation) return;
    this.render();
    if (busy || this.state.subAgents?.length) this.refreshSoon(REFRESH_MS);
  }

  render() {
    const parent = this.state.delegatedBy;
    const children = this.agentId ? this.children() : [];
    this.hooks.onChildren?.(children.filter((c) => c.agentId));
    this.root.hidden = !parent && !children.length;
    fill(
      this.root,
      parent
        ? el('p', { class: 'tree-parent' }, 'Sub-agent of ', link(parent.agentId, 'parent'), ` (its call ${parent.toolCallId}, depth ${parent.depth})`)
        : null,
      children.length ? el('h3', {}, `Sub-agents (${children.length})`) : null,
      children.length ? this.list(children, 1) : null,
    );
  }

  list(children, depth) {
    return el(
      'ul',
      { class: 'tree-children' },
      children.map((c) => {
        const s = c.agentId ? this.states.get(c.agentId) : undefined;
        const own = !c.agentId ? 'starting…' : !s ? 'reading…' : s.error ? `state unavailable: ${s.error}` : runStateText(s);
        const grandchildren = depth < MAX_DEPTH && s?.subAgents?.length ? this.list(s.subAgents, depth + 1) : null;
        return el(
          'li',
          { class: `tree-child ${String(c.status).toLowerCase()}`, 'data-agent-id': c.agentId, 'data-tool-call-id': c.toolCallId },
          c.agentId ? link(c.agentId, 'child') : el('span', { class: 'agent-link pending' }, `(call ${c.toolCallId})`),
          el('span', { class: 'tree-meta' }, ` ${c.profile} · ${CALL_WORD[c.status] ?? c.status}`),
          el('span', { class: 'tree-state' }, own),
          grandchildren,
        );
      }),
    );
  }
}

function link(agentId, role) {
  return el('a', { href: agentHref(agentId), class: `agent-link ${role}`, 'data-agent-id': agentId }, agentId);
}
