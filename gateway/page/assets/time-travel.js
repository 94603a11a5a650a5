/**
 * Time travel from the page (issue 30; docs/time-travel.md): fork an agent from an entry of its timeline
 * (a form asks the new agent's id and, optionally, a model; the fork opens after), rewind it to an entry
 * (after a confirm; a refusal shows the gateway's reason, which names the nearest valid points), inspect what
 * a model call was sent, compare models on a turn (its input run again on a fork per model, the answers side
 * by side), and the agent's lineage: the agent it was forked from, and its own forks.
 */
import { agentHref } from './agent-tree.js';
import { agentPath, api } from './api.js';
import { el, fill, formatMs } from './dom.js';

export class TimeTravel {
  /**
   * @param {{ panel: HTMLElement, title: HTMLElement, body: HTMLElement, lineage: HTMLElement }} nodes
   * @param {{ agentId(): string|null, model(): string, onOpen(agentId: string): void, onRewound(): void }} host
   */
  constructor(nodes, host) {
    this.nodes = nodes;
    this.host = host;
    /** Bumped on each open: an answer for an agent since left is dropped. */
    this.generation = 0;
  }

  /** Another agent is open: the panel closes, its lineage is read again (it does not change while it lives). */
  reset() {
    this.generation += 1;
    this.close();
    fill(this.nodes.lineage);
    this.nodes.lineage.hidden = true;
    void this.loadLineage();
  }

  close() {
    this.nodes.panel.hidden = true;
    fill(this.nodes.body);
  }

  show(title, ...content) {
    fill(this.nodes.title, title, ' ', el('button', { type: 'button', class: 'link close-travel', onclick: () => this.close() }, 'Close'));
    fill(this.nodes.body, ...content);
    this.nodes.panel.hidden = false;
    this.nodes.panel.scrollIntoView?.({ block: 'nearest' });
  }

  /** "forked from X at #N" (from the state's config.forkedFrom) and the agent's forks (GET /agents/:id/forks). */
  async loadLineage() {
    const agentId = this.host.agentId();
    const generation = this.generation;
    if (!agentId) return;
    const [state, forks] = await Promise.all([api('GET', agentPath(agentId)).catch(() => null), api('GET', agentPath(agentId, '/forks')).catch(() => null)]);
    if (generation !== this.generation) return;
    this.renderLineage(state?.config?.forkedFrom ?? null, forks?.forks ?? []);
  }

  renderLineage(forkedFrom, forks) {
    const link = (id) => el('a', { href: agentHref(id), class: 'agent-link', 'data-agent-id': id }, id);
    const parts = [];
    if (forkedFrom) parts.push(el('span', { class: 'forked-from' }, 'forked from ', link(forkedFrom.agentId), ` at #${forkedFrom.seq}`));
    if (forks.length) {
      const items = forks.map((f, i) => [i ? ', ' : '', link(f.agentId), f.forkedFrom ? ` at #${f.forkedFrom.seq}` : '']);
      parts.push(el('span', { class: 'forks' }, `forks (${forks.length}): `, ...items));
    }
    fill(this.nodes.lineage, ...parts.flatMap((p, i) => (i ? [' · ', p] : [p])));
    this.nodes.lineage.hidden = !parts.length;
  }

  /** The fork form for entry `seq`: the new agent's id and an optional model; the fork opens once started. */
  fork(seq) {
    const agentId = this.host.agentId();
    const as = el('input', { type: 'text', name: 'as', class: 'fork-as', required: true, spellcheck: 'false', 'aria-label': "The new agent's id" });
    as.value = `${agentId}.fork-${seq}`;
    const model = el('input', { type: 'text', name: 'model', class: 'fork-model', list: 'models', spellcheck: 'false', 'aria-label': 'Model (optional)' });
    model.placeholder = `${this.host.model() || 'model'} (the same when empty)`;
    const error = el('p', { class: 'error travel-error' });
    const submit = el('button', { type: 'submit', class: 'fork-submit' }, 'Fork');
    const form = el(
      'form',
      { class: 'fork-form' },
      el('label', {}, 'New agent ', as),
      el('label', {}, 'Model ', model),
      el('div', { class: 'buttons' }, submit),
      error,
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      submit.disabled = true;
      fill(error);
      const body = { at: seq, as: as.value.trim(), ...(model.value.trim() ? { model: model.value.trim() } : {}) };
      try {
        const result = await api('POST', agentPath(agentId, '/fork'), body);
        this.host.onOpen(result.agentId);
      } catch (err) {
        fill(error, err.message);
        submit.disabled = false;
      }
    });
    this.show(
      `Fork ${agentId} at #${seq}`,
      el('p', { class: 'muted' }, 'A new agent with this history up to here (its widgets as they were; an empty workspace). This agent is not changed.'),
      form,
    );
    as.focus();
  }

  /** Rewinds to `seq` after a confirm; the gateway's refusal (it names the nearest valid points) is shown as said. */
  async rewind(seq) {
    const agentId = this.host.agentId();
    if (!confirm(`Rewind ${agentId} to #${seq}? What followed leaves its context (history keeps it, shown as rewound).`)) return;
    try {
      const r = await api('POST', agentPath(agentId, '/rewind'), { toSeq: seq, by: 'web' });
      const then = r.runState === 'PendingInput' ? 'its turn runs again' : 'it waits for your next message';
      this.show(
        `Rewound to #${seq}`,
        el('p', { class: 'rewind-result' }, `Rewound ${agentId} to #${r.toSeq} (entry #${r.seq}): ${r.rewound} entries out of force; ${then}.`),
      );
      this.host.onRewound();
    } catch (err) {
      this.show(`Rewind to #${seq} refused`, el('p', { class: 'error rewind-refused' }, err.message));
    }
  }

  /** Compare models on the turn of input `seq`: a fork per model runs it again; their answers with usage, cost and duration. */
  compare(seq) {
    const agentId = this.host.agentId();
    const models = el('input', { type: 'text', name: 'models', class: 'compare-models-input', required: true, spellcheck: 'false', 'aria-label': 'Models' });
    models.value = this.host.model() ? `${this.host.model()}, ` : '';
    models.placeholder = 'openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5';
    const error = el('p', { class: 'error travel-error' });
    const results = el('div', { class: 'compare-results' });
    const submit = el('button', { type: 'submit', class: 'compare-submit' }, 'Compare');
    const form = el(
      'form',
      { class: 'compare-form' },
      el('label', {}, 'Models (comma-separated) ', models),
      el('div', { class: 'buttons' }, submit),
      error,
      results,
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const list = models.value
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean);
      if (!list.length) return;
      submit.disabled = true;
      fill(error);
      fill(results, el('p', { class: 'muted' }, `running the turn on ${list.length} fork${list.length > 1 ? 's' : ''}…`));
      try {
        const r = await api('POST', agentPath(agentId, '/compare'), { at: seq, models: list, prefix: `${agentId}.${seq}-${Date.now().toString(36)}` });
        fill(results, el('ol', { class: 'compared' }, r.results.map(compareItem)));
        void this.loadLineage();
      } catch (err) {
        fill(results);
        fill(error, err.message);
      } finally {
        submit.disabled = false;
      }
    });
    this.show(
      `Compare models at input #${seq}`,
      el('p', { class: 'muted' }, 'Each model runs this turn again on a fork of its own (the forks remain as agents).'),
      form,
    );
    models.focus();
  }

  /** The request model call `seq` sent, rendered again from history: whether it is exactly what was sent, and why not. */
  async inspect(seq) {
    const agentId = this.host.agentId();
    this.show(`Request of call #${seq}`, el('p', { class: 'muted' }, 'rendering…'));
    try {
      const r = await api('GET', agentPath(agentId, `/calls/${seq}/request?short=1`));
      const f = r.recorded ?? r.rendered;
      const facts = f
        ? [`model ${f.model}`, f.rendering, `entries up to #${f.upto_seq}`, `~${f.tokens} tokens`, f.dropped ? `${f.dropped} messages trimmed` : '']
        : [];
      this.show(
        `Request of call #${seq}`,
        el(
          'p',
          { class: `reproduced ${r.reproduced ? 'yes' : 'no'}` },
          r.reproduced ? 'Reproduced: this is exactly what was sent (same hash).' : 'Not reproduced exactly: see the warnings.',
        ),
        facts.length ? el('p', { class: 'muted' }, facts.filter(Boolean).join(' · ')) : null,
        r.warnings?.length
          ? el(
              'ul',
              { class: 'warnings' },
              r.warnings.map((w) => el('li', {}, w)),
            )
          : null,
        r.request ? el('pre', { class: 'request' }, JSON.stringify(r.request.body, null, 2)) : null,
      );
    } catch (err) {
      this.show(`Request of call #${seq}`, el('p', { class: 'error' }, err.message));
    }
  }
}

/** One model's answer in a comparison: the fork (a link), its status, usage, cost, duration and text. */
function compareItem(r) {
  const u = r.usage;
  const facts = [
    r.status,
    `${u.inputTokens} in / ${u.outputTokens} out`,
    u.costUsd === null ? 'not priced' : `$${u.costUsd.toFixed(4)}`,
    r.durationMs === null ? '' : formatMs(r.durationMs),
  ].filter(Boolean);
  return el(
    'li',
    { class: 'compared-model', 'data-model': r.model },
    el('strong', {}, r.model),
    ' ',
    el('a', { href: agentHref(r.agentId), class: 'agent-link', 'data-agent-id': r.agentId }, r.agentId),
    el('p', { class: 'muted' }, facts.join(' · ')),
    el('pre', { class: 'answer' }, r.text),
  );
}
