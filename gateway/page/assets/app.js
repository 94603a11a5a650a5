/**
 * The web chat: wires the agents list, the conversation (from the agent's event stream), the side
 * panels (from its state), the tree of agents around it (parent, sub-agents) and the forms and
 * buttons to the gateway's routes. The chosen agent is in the address (#agent=<id>), so a reload, a
 * shared link or a link in the tree opens it again.
 */
import { AgentTree } from './agent-tree.js';
import { AgentsList } from './agents-list.js';
import { agentPath, api, onUnauthorized, requestId, token } from './api.js';
import { Conversation } from './conversation.js';
import { fill } from './dom.js';
import { followEvents } from './event-stream.js';
import { applyPatch } from './json-patch.js';
import { renderNotebook, renderRunState, renderTasks, renderUsage } from './panels.js';
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
};

const conversation = new Conversation($('conversation'), {
  onDecide: async (toolCallId, approved, reason) => {
    const path = agentPath(view.agentId, `/tool-calls/${encodeURIComponent(toolCallId)}/${approved ? 'approve' : 'deny'}`);
    await api('POST', path, approved ? { by: 'web' } : { by: 'web', ...(reason ? { reason } : {}) });
  },
  onRetry: async () => {
    await api('POST', agentPath(view.agentId, '/retry'), {});
  },
});

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
  Object.assign(view, { agentId, state: {}, entries: [] });
  agents.select(agentId);
  conversation.reset();
  tree.reset(agentId);
  fill($('agent-title'), agentId);
  $('composer').hidden = false;
  $('details').hidden = false;
  showAgentError('');
  renderState();
  renderTimeline($('timeline'), []);
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
    scheduleHistory(0);
  }
  if (HISTORY_CHANGES.has(event.type)) scheduleHistory();
}

function renderState() {
  const s = view.state;
  renderRunState($('run-state'), s);
  renderUsage($('usage'), s.usage);
  renderTasks($('tasks'), s.tasks);
  renderNotebook($('notebook'), s.notebook);
  conversation.setApprovals(s.awaitingApproval ?? []);
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

async function loadHistory(agentId) {
  try {
    for (let pages = 0; pages < 100; pages++) {
      const after = view.entries.length ? view.entries[view.entries.length - 1].seq : 0;
      const page = await api('GET', agentPath(agentId, `/history?after=${after}&limit=${HISTORY_PAGE}`));
      if (agentId !== view.agentId) return;
      const fresh = (page?.entries ?? []).filter((e) => e.seq > after);
      view.entries.push(...fresh);
      if (!fresh.length || page.nextAfter === null || page.nextAfter === undefined || fresh.length < HISTORY_PAGE) break;
    }
    renderTimeline($('timeline'), view.entries);
    tree.update(view.state, view.entries);
    for (const e of view.entries) if (e.kind === 'tool_results') for (const r of e.results ?? []) conversation.setResultStatus(r.toolCallId, r.status);
  } catch (err) {
    if (agentId === view.agentId) fill($('timeline'), `Timeline unavailable: ${err.message}`);
  }
}

async function send(event) {
  event.preventDefault();
  const box = $('message');
  const text = box.value;
  if (!text.trim() || !view.agentId) return;
  $('send').disabled = true;
  fill($('send-error'));
  try {
    // The key makes a resend after a lost answer the same input, never a second turn.
    await api('POST', agentPath(view.agentId, '/input'), { text, sender: 'web' }, { 'Idempotency-Key': `web-${requestId()}` });
    box.value = '';
  } catch (err) {
    fill($('send-error'), err.message);
  } finally {
    $('send').disabled = false;
    box.focus();
  }
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
