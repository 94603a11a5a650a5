/**
 * The web chat: wires the agents list, the conversation (from the agent's event stream), the side
 * panels (from its state), the tree of agents around it (parent, sub-agents) and the forms and
 * buttons to the gateway's routes — the controls the CLI has for an agent: send, approve/deny, retry,
 * interrupt, model, stop, reset, notebook edit, export; and on the timeline fork, rewind and inspect
 * (time-travel.js), with the agent's lineage under its name. The chosen agent is in the address
 * (#agent=<id>), so a reload, a shared link or a link in the tree opens it again.
 */
import { AgentTree } from './agent-tree.js';
import { AgentsList } from './agents-list.js';
import { agentPath, api, onUnauthorized, requestId, token } from './api.js';
import { Conversation } from './conversation.js';
import { el, fill } from './dom.js';
import { demoHint } from './demo-hint.js';
import { followEvents } from './event-stream.js';
import { applyPatch } from './json-patch.js';
import { renderNotebook, renderRunState, renderTasks, renderToolRules, renderUsage } from './panels.js';
import { TimeTravel } from './time-travel.js';
import { renderTimeline } from './timeline.js';

const $ = (id) => document.getElementById(id);
const HISTORY_PAGE = 500;
/** Events after which the history (for the timeline) has new entries. */
const HISTORY_CHANGES = new Set(['TEXT_MESSAGE_END', 'TOOL_CALL_RESULT', 'RUN_FINISHED', 'RUN_ERROR', 'TOOL_CALL_END']);

const view = {
  agentId: null,
  stream: null,
  state: {},
  entries: [],
  historyTimer: null,
  /** The history load under way for the current entries, `{ generation, done }`, and whether another is wanted after it. */
  historyLoad: null,
  historyAgain: false,
  /** Bumped when the entries start over (another agent, a reset): a load of before drops what it read. */
  historyGeneration: 0,
};

const conversation = new Conversation($('conversation'), {
  onDecide: async (toolCallId, approved, reason) => {
    const path = agentPath(view.agentId, `/tool-calls/${encodeURIComponent(toolCallId)}/${approved ? 'approve' : 'deny'}`);
    await api('POST', path, approved ? { by: 'web', door: 'page' } : { by: 'web', door: 'page', ...(reason ? { reason } : {}) });
  },
  onResolve: async (toolCallId, how) => {
    await api('POST', agentPath(view.agentId, `/tool-calls/${encodeURIComponent(toolCallId)}/resolve`), { ...how, by: 'web' });
  },
  onAnswer: async (waitId, answer) => {
    await api('POST', agentPath(view.agentId, `/waits/${encodeURIComponent(waitId)}`), { answer, by: 'web', door: 'page' });
  },
  onRetry: async () => {
    await api('POST', agentPath(view.agentId, '/retry'), {});
  },
});

const travel = new TimeTravel(
  { panel: $('travel'), title: $('travel-title'), body: $('travel-body'), lineage: $('lineage') },
  {
    agentId: () => view.agentId,
    model: () => view.state.model ?? '',
    onOpen: (agentId) => {
      location.hash = `agent=${encodeURIComponent(agentId)}`;
    },
    onRewound: () => scheduleHistory(0),
  },
);
/** What the timeline offers on its entries. */
const timelineActions = {
  onFork: (seq) => travel.fork(seq),
  onRewind: (seq) => void travel.rewind(seq),
  onInspect: (seq) => void travel.inspect(seq),
  onCompare: (seq) => travel.compare(seq),
};

const tree = new AgentTree($('agent-tree'), {
  // A sub-agent's tool call in the conversation links to the agent working on it.
  onChildren: (children) => children.forEach((c) => conversation.linkSubAgent(c.toolCallId, c.agentId)),
});

const agents = new AgentsList({
  list: $('agent-list'),
  search: $('agent-search'),
  state: $('agent-state'),
  error: $('agents-error'),
  onSelect: (agentId) => {
    location.hash = `agent=${encodeURIComponent(agentId)}`;
    $('agents').classList.remove('open');
  },
});

/** Opens the agent named in the address, if it is not the one shown. */
function openFromHash(force = false) {
  const match = /^#agent=(.+)$/.exec(location.hash);
  const agentId = match ? decodeURIComponent(match[1]) : null;
  if (agentId && (force || agentId !== view.agentId)) openAgent(agentId);
}

function openAgent(agentId) {
  view.stream?.close();
  clearTimeout(view.historyTimer);
  Object.assign(view, { agentId, state: {}, entries: [], historyGeneration: view.historyGeneration + 1 });
  agents.select(agentId);
  conversation.reset();
  tree.reset(agentId);
  fill($('agent-title'), agentId);
  $('composer').hidden = false;
  $('details').hidden = false;
  $('agent-controls').hidden = false;
  $('welcome').hidden = true;
  $('toggle-details').hidden = false;
  $('agent-model').value = '';
  fill($('control-status'));
  closeNotebookEditor();
  showAgentError('');
  renderState();
  renderTimeline($('timeline'), []);
  travel.reset();
  view.stream = followEvents(agentId, {
    onEvent,
    onStatus: (status, detail) => {
      const text = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', unauthorized: 'needs a token', gone: 'not found' }[status];
      fill($('connection'), text ?? status);
      $('connection').dataset.status = status;
      if (status === 'gone') showAgentError(detail ?? `No agent ${agentId}.`);
      if (status === 'unauthorized') showTokenForm(detail);
    },
  });
  scheduleHistory(0);
}

function onEvent(event) {
  conversation.handle(event);
  if (event.type === 'STATE_SNAPSHOT') {
    view.state = event.snapshot ?? {};
    renderState();
  } else if (event.type === 'STATE_DELTA') {
    view.state = applyPatch(view.state, event.delta ?? []);
    renderState();
  } else if (event.type === 'CUSTOM' && event.name === 'livecontext.reset') {
    view.entries = [];
    view.historyGeneration += 1;
    scheduleHistory(0);
  }
  if (HISTORY_CHANGES.has(event.type)) scheduleHistory();
}

function renderState() {
  const s = view.state;
  renderRunState($('run-state'), s);
  conversation.setActivity(s);
  agents.setLive(view.agentId, s.stateWord, s.model);
  const demo = s.model === 'demo:offline';
  conversation.setHint(s.model ? (demo ? 'demo' : 'plain') : null, () =>
    demo ? demoHint(tryText) : [el('p', {}, 'No messages yet: send one below to start a turn.')],
  );
  // The model field shows the agent's model until you type another.
  const model = $('agent-model');
  if (s.model && document.activeElement !== model && (!model.value || model.dataset.shown === model.value)) {
    model.value = s.model;
    model.dataset.shown = s.model;
  }
  renderUsage($('usage'), s.usage);
  renderTasks($('tasks'), s.tasks);
  renderNotebook($('notebook'), s.notebook);
  renderToolRules($('tool-rules'), s.toolRules);
  conversation.setApprovals(s.awaitingApproval ?? []);
  conversation.setUnknownOutcomes(s.unknownOutcomes ?? []);
  conversation.setElicitations(s.waits ?? []);
  tree.update(s);
  // While a turn is open (working, or waiting for an approval or on an error), it can be ended.
  $('interrupt').hidden = !s.runState || s.runState === 'WaitingInput' || s.stopping;
}

function showAgentError(message) {
  fill($('agent-error'), message);
  $('agent-error').hidden = !message;
}

/** Fetches the entries the page lacks (for the timeline), a moment after the last change. */
function scheduleHistory(delayMs = 300) {
  clearTimeout(view.historyTimer);
  view.historyTimer = setTimeout(() => void loadHistory(view.agentId), delayMs);
}

/**
 * One load at a time into the same entries: a load asked for while one is under way runs after it. Two
 * at once both read after the same entry and both appended what they read — the same turn twice on the
 * timeline, as after a gateway restart, when the first load waited on the gateway and the resumed
 * stream asked again. Entries are also kept by seq, so none is ever taken twice.
 * A load for entries since dropped (another agent was opened, or this one was reset) keeps nothing of
 * what it reads, so the new entries' load does not wait for it: it once did, and a load asked for
 * meanwhile was then dropped — a parent opened from its child while the child's history was still
 * loading showed no timeline and none of its answered sub-agents until its next event.
 */
function loadHistory(agentId) {
  const running = view.historyLoad;
  if (running && running.generation === view.historyGeneration) {
    view.historyAgain = true;
    return running.done;
  }
  const load = { generation: view.historyGeneration, done: null };
  view.historyLoad = load;
  view.historyAgain = false;
  load.done = readHistory(agentId).finally(() => {
    if (view.historyLoad !== load) return; // a load for newer entries has taken over
    view.historyLoad = null;
    if (view.historyAgain) {
      view.historyAgain = false;
      if (view.agentId) void loadHistory(view.agentId);
    }
  });
  return load.done;
}

async function readHistory(agentId) {
  const generation = view.historyGeneration;
  try {
    for (let pages = 0; pages < 100; pages++) {
      const after = view.entries.length ? view.entries[view.entries.length - 1].seq : 0;
      const page = await api('GET', agentPath(agentId, `/history?after=${after}&limit=${HISTORY_PAGE}`));
      if (agentId !== view.agentId || generation !== view.historyGeneration) return;
      const last = view.entries.length ? view.entries[view.entries.length - 1].seq : 0;
      const fresh = (page?.entries ?? []).filter((e) => e.seq > last);
      view.entries.push(...fresh);
      if (!fresh.length || page.nextAfter === null || page.nextAfter === undefined || fresh.length < HISTORY_PAGE) break;
    }
    renderTimeline($('timeline'), view.entries, timelineActions);
    tree.update(view.state, view.entries);
    for (const e of view.entries)
      if (e.kind === 'tool_results') for (const r of e.results ?? []) conversation.setResultStatus(r.toolCallId, r.status, r.metadata);
  } catch (err) {
    if (agentId === view.agentId && generation === view.historyGeneration) fill($('timeline'), `Timeline unavailable: ${err.message}`);
  }
}

/**
 * Sends the message, shown at once in the conversation (pending) and taken over by the stream's copy
 * when the agent's turn brings it: never shown twice. A send that fails is taken back, its text
 * returned to the box.
 */
async function send(event) {
  event.preventDefault();
  const box = $('message');
  const text = box.value;
  if (!text.trim() || !view.agentId) return;
  const agentId = view.agentId;
  fill($('send-error'));
  box.value = '';
  const pending = conversation.addPending(text);
  try {
    // The key makes a resend after a lost answer the same input, never a second turn.
    const { inputSeq } = await api('POST', agentPath(agentId, '/input'), { text, sender: 'web' }, { 'Idempotency-Key': `web-${requestId()}` });
    if (agentId === view.agentId) pending.accepted(inputSeq);
  } catch (err) {
    if (agentId !== view.agentId) return;
    pending.failed();
    if (!box.value) box.value = text;
    fill($('send-error'), err.message);
  } finally {
    box.focus();
  }
}

/** A suggestion of the empty screen: into the box, ready to send. */
function tryText(text) {
  const box = $('message');
  box.value = text;
  box.focus();
}

/** Runs a control: its button disabled meanwhile, what happened (or went wrong) said beside the controls. */
async function control(button, action, done) {
  button.disabled = true;
  fill($('control-status'));
  $('control-status').classList.remove('error');
  try {
    const said = await action();
    fill($('control-status'), said ?? done);
  } catch (err) {
    $('control-status').classList.add('error');
    fill($('control-status'), err.message);
  } finally {
    button.disabled = false;
  }
}

function setModel(event) {
  event.preventDefault();
  const model = $('agent-model').value.trim();
  if (!model) return;
  void control($('set-model'), async () => {
    await api('POST', agentPath(view.agentId, '/configure'), { model });
    $('agent-model').dataset.shown = model;
    return `Model set to ${model}.`;
  });
}

function stopAgent() {
  if (!confirm(`Stop agent ${view.agentId}? It ends after its current step; its history stays readable.`)) return;
  void control(
    $('stop-agent'),
    () => api('POST', agentPath(view.agentId, '/stop'), { reason: 'stopped from the web page' }),
    'Stopping after the current step.',
  );
}

function resetAgent() {
  if (!confirm(`Reset agent ${view.agentId}? Its history starts over (its configuration and queued input stay).`)) return;
  void control($('reset-agent'), () => api('POST', agentPath(view.agentId, '/reset'), {}), 'Reset: the history starts over.');
}

/** Downloads the agent's snapshot as `<agent>.json` (for `livecontext import` or POST /agents/import). */
function exportAgent() {
  const agentId = view.agentId;
  void control($('export-agent'), async () => {
    const snapshot = await api('GET', agentPath(agentId, '/export'));
    const url = URL.createObjectURL(new Blob([JSON.stringify(snapshot, null, 2)], { type: 'application/json' }));
    const link = el('a', { href: url, download: `${agentId.replace(/[^A-Za-z0-9._-]/g, '_')}.json` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    return `Exported ${agentId}.json.`;
  });
}

function openNotebookEditor() {
  $('notebook-text').value = view.state.notebook ?? '';
  fill($('notebook-error'));
  $('notebook-form').hidden = false;
  $('notebook').hidden = true;
  $('notebook-text').focus();
}

function closeNotebookEditor() {
  $('notebook-form').hidden = true;
  $('notebook').hidden = false;
}

/** Writes the notebook as the host (POST /agents/:id/notebook {set}); the state then shows it. */
async function saveNotebook(event) {
  event.preventDefault();
  const button = $('notebook-form').querySelector('button[type=submit]');
  button.disabled = true;
  try {
    await api('POST', agentPath(view.agentId, '/notebook'), { set: $('notebook-text').value, by: 'web' });
    closeNotebookEditor();
  } catch (err) {
    fill($('notebook-error'), err.message);
  } finally {
    button.disabled = false;
  }
}

/** On a phone the details are a drawer over the conversation, opened and closed from the top bar. */
function setDetailsOpen(open) {
  $('details').classList.toggle('open', open);
  $('scrim').hidden = !open;
  $('toggle-details').setAttribute('aria-expanded', String(open));
}

/** Ends the running turn (POST /agents/:id/interrupt); the stream then shows the turn's end. */
async function interrupt() {
  const button = $('interrupt');
  button.disabled = true;
  fill($('send-error'));
  try {
    const { interrupted } = await api('POST', agentPath(view.agentId, '/interrupt'), { by: 'web' });
    if (!interrupted) fill($('send-error'), 'Nothing to interrupt: the agent already waits for input.');
  } catch (err) {
    fill($('send-error'), err.message);
  } finally {
    button.disabled = false;
  }
}

async function startAgent(event) {
  event.preventDefault();
  const form = new FormData(event.target);
  const body = { agentId: String(form.get('agentId')).trim(), model: String(form.get('model')).trim() };
  const instruction = String(form.get('systemInstruction') ?? '').trim();
  if (instruction) body.systemInstruction = instruction;
  fill($('start-error'));
  try {
    await api('POST', '/agents', body);
    event.target.reset();
    newAgentId();
    $('start-agent').open = false;
    await agents.load();
    agents.onSelect(body.agentId);
  } catch (err) {
    fill($('start-error'), err.message);
  }
}

function newAgentId() {
  $('start-form').elements.agentId.value = `agent-${requestId().slice(0, 6)}`;
}

function showTokenForm(message) {
  $('token-form').hidden = false;
  fill($('token-error'), message ?? '');
  $('token').focus();
}

function init() {
  onUnauthorized(() => showTokenForm(token.get() ? 'The gateway refused this token.' : 'The gateway needs a token.'));
  $('show-token').addEventListener('click', () => ($('token-form').hidden ? showTokenForm() : ($('token-form').hidden = true)));
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    token.set($('token').value.trim());
    $('token').value = '';
    $('token-form').hidden = true;
    agents.start();
    openFromHash(true);
  });
  $('toggle-agents').addEventListener('click', () => {
    const open = $('agents').classList.toggle('open');
    $('toggle-agents').setAttribute('aria-expanded', String(open));
  });
  $('toggle-details').addEventListener('click', () => setDetailsOpen(!$('details').classList.contains('open')));
  $('close-details').addEventListener('click', () => setDetailsOpen(false));
  $('scrim').addEventListener('click', () => setDetailsOpen(false));
  $('agent-controls').addEventListener('submit', setModel);
  $('stop-agent').addEventListener('click', stopAgent);
  $('reset-agent').addEventListener('click', resetAgent);
  $('export-agent').addEventListener('click', exportAgent);
  $('edit-notebook').addEventListener('click', openNotebookEditor);
  $('cancel-notebook').addEventListener('click', closeNotebookEditor);
  $('notebook-form').addEventListener('submit', saveNotebook);
  $('composer').addEventListener('submit', send);
  $('interrupt').addEventListener('click', () => void interrupt());
  $('message').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) send(event);
  });
  $('start-form').addEventListener('submit', startAgent);
  window.addEventListener('hashchange', () => openFromHash());
  newAgentId();
  agents.start();
  openFromHash();
}

init();
