/**
 * A timeline of each turn, derived from history alone: a model call lasts from the entry it followed
 * to its output's timestamp; a batch of tool calls from the output that asked for them to their results
 * (approval waits included), each call with the time it ran (`elapsedMs`). Retries show from the
 * entries' metadata: `attempts` (runs of a tool, or of a model call) and `fallback_from` (models that failed);
 * a model call that blocked the agent is a `failure` step, from its model_failure entry. What a rewind
 * took out stays, marked `rewound` (dimmed); a `rewind` step opens a turn of its own, saying where the agent
 * went back to. Steps and turns carry the seq of their entry, and whether it is a point to fork or rewind
 * at (agent/time-travel.ts isTravelPoint), for the actions the page offers on them.
 */
import { el, fill, formatMs } from './dom.js';

const TURNS_SHOWN = 20;
const time = (entry) => Date.parse(entry.timestamp);

/** A retry note for a model output or tool result, or ''. */
function retryNote(metadata = {}) {
  const notes = [];
  if (Number(metadata.attempts) > 1) notes.push(`attempt ${metadata.attempts}`);
  if (Array.isArray(metadata.fallback_from) && metadata.fallback_from.length) {
    notes.push(`after ${metadata.fallback_from.map((f) => (typeof f === 'string' ? f : (f?.model ?? '?'))).join(', ')} failed`);
  }
  return notes.join('; ');
}

/**
 * Turns of `entries` (oldest first): `{ inputSeq, start, end, steps }`, each step
 * `{ kind: 'model'|'failure'|'tools'|'tool', label, start, ms, note }` with `start` in epoch ms.
 */
export function turnsOf(entries) {
  const turns = [];
  let turn = null;
  let previous = null;
  const interruptedAt = interruptedBatches(entries);
  const kept = inForce(entries);
  const keptSeqs = new Set(kept.map((e) => e.seq));
  const rewound = new Set(kept === entries ? [] : entries.filter((e) => !keptSeqs.has(e.seq)).map((e) => e.seq));
  for (const e of entries) {
    const turnBefore = turn;
    const stepsBefore = turn?.steps.length ?? 0;
    if (e.kind === 'model_input') {
      turn = { inputSeq: e.inputSeq ?? null, seq: e.seq, rewound: rewound.has(e.seq), start: time(e), end: time(e), steps: [] };
      turns.push(turn);
    } else if (e.kind === 'rewind' && turn) {
      // What follows a rewind continues from its point: a turn of its own, after the ones it took out.
      const step = { kind: 'rewind', label: `rewound to #${e.toSeq}`, start: time(e), ms: 0, note: [e.by, e.reason].filter(Boolean).join(' · ') };
      turn = { inputSeq: null, seq: null, label: `rewind #${e.seq}`, rewound: rewound.has(e.seq), start: time(e), end: time(e), steps: [step] };
      turns.push(turn);
    } else if (turn && e.kind === 'turn_end') {
      turn.steps.push({ kind: 'end', label: `turn ended (${e.reason ?? 'ended'})`, start: time(e), ms: 0, note: '' });
    } else if (turn && e.kind === 'model_output' && previous) {
      const usage = e.usage ? `${e.usage.inputTokens} in / ${e.usage.outputTokens} out${e.usage.costUsd ? `, $${e.usage.costUsd.toFixed(4)}` : ''}` : '';
      const calls = e.toolCalls.length ? `${e.toolCalls.length} tool call${e.toolCalls.length > 1 ? 's' : ''}` : 'answer';
      turn.steps.push({
        kind: 'model',
        label: `model ${e.invocation.model}`,
        start: time(previous),
        ms: time(e) - time(previous),
        note: [calls, usage, retryNote(e.metadata)].filter(Boolean).join(' · '),
        call: e.seq,
      });
    } else if (turn && e.kind === 'compaction' && previous) {
      // A summary of the conversation so far, written before the model call that follows it.
      const usage = e.usage ? `${e.usage.inputTokens} in / ${e.usage.outputTokens} out` : '';
      turn.steps.push({
        kind: 'model',
        label: `compaction ${e.invocation.model}`,
        start: time(previous),
        ms: time(e) - time(previous),
        note: [`summarised #1–#${e.throughSeq}`, usage].filter(Boolean).join(' · '),
      });
    } else if (turn && e.kind === 'model_failure' && previous) {
      // A call that blocked the agent after its retries; a retry that succeeds shows as the next model step.
      turn.steps.push({
        kind: 'failure',
        label: `${e.call === 'compaction' ? 'compaction' : 'model'} ${e.model} failed`,
        start: time(previous),
        ms: time(e) - time(previous),
        note: [e.code, e.attempts ? `${e.attempts} attempts` : '', e.message].filter(Boolean).join(' · '),
      });
    } else if (turn && e.kind === 'tool_results' && previous) {
      const batchStart = time(previous);
      const batchMs = time(e) - batchStart;
      // A call cut short by an interrupt has no time of its own: it ran until the batch ended.
      const cut = interruptedAt.has(e.seq) ? e.results.filter((r) => r.elapsedMs === undefined && r.status === 'Skipped') : [];
      const ranMs = e.results.reduce((sum, r) => sum + (r.elapsedMs ?? 0), 0);
      // The batch's time beyond its calls' own: approvals, queueing, workers picking the calls up.
      const waited = cut.length
        ? `interrupted after ${formatMs(batchMs)}`
        : batchMs - ranMs > 100
          ? `waited ${formatMs(batchMs - ranMs)} (for an approval or a worker)`
          : '';
      turn.steps.push({ kind: 'tools', label: 'tool calls', start: batchStart, ms: batchMs, note: [e.executeError, waited].filter(Boolean).join(' · ') });
      // Results carry no start time: laid out back to back, ending when the results were recorded.
      let offset = batchStart + Math.max(0, batchMs - ranMs);
      for (const r of e.results) {
        const interrupted = cut.includes(r);
        const ms = interrupted ? batchMs : (r.elapsedMs ?? 0);
        const status = interrupted ? 'interrupted' : r.status;
        turn.steps.push({
          kind: 'tool',
          label: r.toolName,
          start: interrupted ? batchStart : offset,
          ms,
          note: [status, retryNote(r.metadata)].filter(Boolean).join(' · '),
        });
        if (!interrupted) offset += ms;
      }
    }
    // The step this entry made: its seq, whether it was taken out, whether it is a point to go back to.
    const made = !turn ? [] : turn === turnBefore ? turn.steps.slice(stepsBefore) : turn.steps;
    made.forEach((step, i) => {
      step.seq = e.seq;
      step.rewound = rewound.has(e.seq);
      if (i === 0 && !step.rewound && isTravelPoint(e)) step.point = true;
    });
    if (turn && e.kind !== 'system_instruction' && e.kind !== 'widget_write' && e.kind !== 'tool_rules' && e.kind !== 'a2a_push')
      turn.end = Math.max(turn.end, time(e));
    if (e.kind !== 'system_instruction' && e.kind !== 'widget_write' && e.kind !== 'tool_rules' && e.kind !== 'a2a_push') previous = e;
  }
  return turns;
}

/** Whether `entry` is a point to fork or rewind at: a turn's end (an answer, a turn_end) or an input (agent/time-travel.ts). */
export function isTravelPoint(entry) {
  return entry.kind === 'model_input' || entry.kind === 'turn_end' || (entry.kind === 'model_output' && !entry.toolCalls?.length);
}

/** The entries still in force: those a rewind took out (after its `toSeq`, before it) are left out, as agent/time-travel.ts does. */
export function inForce(entries) {
  if (!entries.some((e) => e.kind === 'rewind')) return entries;
  const kept = [];
  let upTo = Number.POSITIVE_INFINITY;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.seq > upTo) continue;
    kept.push(e);
    if (e.kind === 'rewind') upTo = Math.min(upTo, e.toSeq);
  }
  return kept.reverse();
}

/** The seqs of tool results an interrupt wrote: those the turn_end of an interrupted turn follows at once. */
function interruptedBatches(entries) {
  const seqs = new Set();
  let lastResults = null;
  for (const e of entries) {
    if (e.kind === 'system_instruction' || e.kind === 'widget_write' || e.kind === 'tool_rules' || e.kind === 'a2a_push') continue;
    if (e.kind === 'turn_end' && e.reason === 'interrupted' && lastResults !== null) seqs.add(lastResults);
    lastResults = e.kind === 'tool_results' ? e.seq : null;
  }
  return seqs;
}

/**
 * Shows the last turns of `entries` in `list`, newest first. `actions` (optional): `{ onFork(seq), onRewind(seq),
 * onInspect(seq), onCompare(seq) }`, offered on the entries they fit — fork and rewind on valid points (a turn's
 * input, its answer, a turn_end), inspect on model calls, compare on a turn's input.
 */
export function renderTimeline(list, entries, actions = null) {
  const turns = turnsOf(entries).slice(-TURNS_SHOWN).reverse();
  fill(
    list,
    turns.map((turn) => {
      const span = Math.max(turn.end - turn.start, 1);
      const rows = turn.steps.map((s) =>
        el(
          'li',
          {
            class: `step ${s.kind}${s.rewound ? ' rewound' : ''}`,
            'data-seq': s.seq ?? null,
            title: s.rewound ? `#${s.seq}: rewound (no longer in force)` : null,
          },
          el('span', { class: 'step-label' }, s.label),
          el('span', { class: 'step-ms' }, formatMs(s.ms)),
          el('span', { class: 'bar-track' }, bar(pct(s.start - turn.start, span), Math.max(pct(s.ms, span), 0.5))),
          s.note ? el('span', { class: 'step-note' }, s.note) : null,
          travelButtons(actions, { seq: s.seq, point: s.point, call: s.kind === 'model' && s.label.startsWith('model ') ? s.call : undefined }),
        ),
      );
      const title = `${turn.label ?? `turn${turn.inputSeq ? ` #${turn.inputSeq}` : ''}`} · ${formatMs(turn.end - turn.start)} · ${new Date(turn.start).toLocaleTimeString()}`;
      const inputPoint = turn.seq && !turn.rewound ? { seq: turn.seq, point: true, input: true } : {};
      return el(
        'li',
        { class: `turn${turn.rewound ? ' rewound' : ''}`, 'data-seq': turn.seq ?? null },
        el('div', { class: 'turn-title' }, title, travelButtons(actions, inputPoint)),
        el('ol', { class: 'steps' }, rows),
      );
    }),
  );
  if (!turns.length) list.append(el('li', { class: 'empty' }, 'No turns yet.'));
}

/** The actions of one entry: fork and rewind at a valid point, inspect on a model call; null when none fits. */
function travelButtons(actions, { seq, point, call, input }) {
  if (!actions || (!point && !call)) return null;
  const where = input ? `from input #${seq}: its turn runs again` : `at #${seq}`;
  const button = (cls, text, title, run) => el('button', { type: 'button', class: `link ${cls}`, 'data-seq': seq, title, onclick: () => run(seq) }, text);
  return el(
    'span',
    { class: 'travel' },
    point ? button('fork-here', 'fork', `Fork from here: a new agent with this history ${where}`, actions.onFork) : null,
    point ? button('rewind-here', 'rewind', `Rewind to here: this agent goes back ${where}`, actions.onRewind) : null,
    input ? button('compare-models', 'compare', `Compare models: run this turn again on forks, one per model`, actions.onCompare) : null,
    // A rewound call was still sent: it can be inspected (rendered from what was in force when it was made).
    call ? button('inspect-request', 'inspect', `Inspect the request model call #${call} sent`, () => actions.onInspect(call)) : null,
  );
}

/** Set through CSSOM: the page's Content-Security-Policy refuses inline style attributes. */
function bar(leftPct, widthPct) {
  const node = el('span', { class: 'bar' });
  node.style.marginLeft = `${leftPct}%`;
  node.style.width = `${Math.min(widthPct, 100 - leftPct)}%`;
  return node;
}

const pct = (part, whole) => Math.min(100, Math.max(0, (part / whole) * 100));
