/**
 * The conversation view, built from AG-UI events as they arrive: messages (streamed text grows in
 * place; an agent's finished answer is shown as markdown, safely — markdown.js), your own messages at
 * once (pending until the stream brings them, then the stream's own), tool calls with their arguments and results, turn errors (a budget stop says which budget and
 * what to do), turns ended without an answer (interrupted, or a question the agent asks), approve/deny
 * buttons on the calls that wait for a person, and on a sub-agent's call a link to that agent. Every
 * piece of agent data is put in as text (see dom.js).
 */
import { agentHref } from './agent-tree.js';
import { el, fill, keepScrolledToEnd } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { budgetName } from './panels.js';

const ROLE_LABEL = { user: 'You', assistant: 'Agent', system: 'System', developer: 'Developer', tool: 'Tool' };

export class Conversation {
  /**
   * @param {HTMLElement} list the <ol> that holds the conversation
   * @param {{ onDecide(toolCallId: string, approved: boolean, reason?: string): Promise<void>, onResolve(toolCallId: string, how: object): Promise<void>, onRetry(): Promise<void> }} actions
   */
  constructor(list, actions) {
    this.list = list;
    this.actions = actions;
    this.reset();
  }

  /** Empties the view (another agent, or the agent was reset). */
  reset() {
    this.messages = new Map();
    this.tools = new Map();
    this.waiting = new Set();
    /** Tool calls whose outcome is unknown, shown with done / failed / retry. */
    this.unresolved = new Set();
    /** Calls with an MCP server's open question (elicitation): toolCallId → waitId. */
    this.elicits = new Map();
    /** Messages sent from this page that the stream has not brought yet, oldest first: `{ item, text, inputSeq? }`. */
    this.pending = [];
    /** The input sequence number of the turn the stream opened last (RUN_STARTED `turn-<inputSeq>`). */
    this.turnInputSeq = null;
    this.running = false;
    this.asked = false;
    this.blockedOn = undefined;
    this.detail = null;
    fill(this.list);
    this.hint = el('li', { class: 'hint', hidden: true });
    this.hintKey = null;
    this.working = el('li', { class: 'working', hidden: true }, 'working…');
    this.list.append(this.hint, this.working);
  }

  /**
   * What the empty conversation offers to try: `build()`'s content, made again only when `key` changes
   * (null: nothing). Hidden once there is anything else to show.
   */
  setHint(key, build) {
    if (key !== this.hintKey) {
      this.hintKey = key;
      fill(this.hint, key === null ? [] : build());
    }
    this.updateHint();
  }

  updateHint() {
    const shown = this.list.querySelector('li.msg, li.tool, li.run-error, li.note');
    this.hint.hidden = !!shown || !this.hint.firstChild;
  }

  /** Shows one AG-UI event. */
  handle(event) {
    keepScrolledToEnd(this.list, () => {
      this.apply(event);
      this.updateHint();
    });
  }

  /**
   * A message sent from this page, shown at once (marked as sending, then as queued) until the stream
   * brings it; returns a handle to say what became of the send.
   */
  addPending(text) {
    const item = el(
      'li',
      { class: 'msg user pending' },
      el('span', { class: 'who' }, 'You'),
      el('div', { class: 'text' }, text),
      el('span', { class: 'note sending' }, 'sending…'),
    );
    const p = { item, text, inputSeq: null };
    this.pending.push(p);
    this.asked = false; // this is the answer the agent waited for
    this.renderWorking();
    keepScrolledToEnd(this.list, () => {
      this.list.append(item); // after "working…": the turn under way comes first
      this.updateHint();
    });
    return {
      /** The gateway took it as input #inputSeq (it may wait behind the turn under way). */
      accepted: (inputSeq) => {
        p.inputSeq = inputSeq;
        if (item.isConnected && item.classList.contains('pending')) fill(item.querySelector('.note'), 'sent');
      },
      /** It was not taken: the view forgets it (the page shows why, and keeps the text). */
      failed: () => {
        this.pending = this.pending.filter((x) => x !== p);
        item.remove();
        this.updateHint();
      },
    };
  }

  /**
   * The stream's user message `messageId` (its input's turn is turnInputSeq): the pending message it is,
   * if it came from this page — by input number once the send was answered, else the oldest sent from
   * here — taken over as the stream's, so it is shown once.
   */
  claimPending(messageId, name) {
    if (name !== 'web' || !this.pending.length) return null;
    const byNumber = this.turnInputSeq !== null ? this.pending.find((p) => p.inputSeq === this.turnInputSeq) : undefined;
    const p = byNumber ?? this.pending.find((x) => x.inputSeq === null) ?? null;
    if (!p) return null;
    this.pending = this.pending.filter((x) => x !== p);
    const { item } = p;
    item.classList.remove('pending');
    item.querySelector('.note')?.remove();
    item.dataset.messageId = messageId;
    const text = document.createTextNode('');
    fill(item.querySelector('.text'), text); // the stream's text follows (the same, as the agent took it)
    return { item, text };
  }

  apply(event) {
    switch (event.type) {
      case 'TEXT_MESSAGE_START':
        this.message(event.messageId, event.role, event.name);
        break;
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_CHUNK':
        this.message(event.messageId, event.role).text.appendData(event.delta ?? '');
        break;
      case 'TEXT_MESSAGE_END':
        this.endMessage(event.messageId);
        break;
      case 'TOOL_CALL_START':
        this.tool(event.toolCallId, event.toolCallName);
        break;
      case 'TOOL_CALL_ARGS': {
        const t = this.tool(event.toolCallId);
        // Arguments shown from the state (a call waiting for a person, seen before its events) give way to the stream's.
        if (t.argsFromState) {
          t.args.data = '';
          t.argsFromState = false;
        }
        t.args.appendData(event.delta ?? '');
        break;
      }
      case 'TOOL_CALL_END':
        this.toolArgsDone(event.toolCallId);
        break;
      case 'TOOL_CALL_RESULT':
        this.toolResult(event.toolCallId, event.content);
        break;
      case 'RUN_STARTED': {
        const turn = /^turn-(\d+)$/.exec(String(event.runId ?? ''));
        this.turnInputSeq = turn ? Number(turn[1]) : null;
        this.asked = false;
        this.setWorking(true);
        break;
      }
      case 'RUN_FINISHED':
        this.setWorking(false);
        this.turnEnded(event.result);
        break;
      case 'RUN_ERROR':
        this.setWorking(false);
        this.add(this.errorItem(event.message, event.code));
        break;
      case 'CUSTOM':
        if (event.name === 'livecontext.reset') {
          this.reset();
          this.add(el('li', { class: 'note' }, 'The agent was reset: its history starts again.'));
        }
        break;
      default:
        break; // state events are shown by the side panels; others carry nothing to show here
    }
  }

  /** Puts an item before the "working…" line, which stays last but for messages not yet taken. */
  add(item) {
    this.list.insertBefore(item, this.working);
  }

  setWorking(on) {
    this.running = on;
    this.renderWorking();
  }

  /** What the agent does, from its state (its words, and what it is blocked on): the working line says it. */
  setActivity(state) {
    this.blockedOn = state?.blockedOn;
    this.detail = state?.stateDetail ?? null;
    this.renderWorking();
  }

  /**
   * The line under the conversation: what the turn under way waits for — the agent ("working…", with
   * what it does), or you (an approval, a resolution of a call whose outcome is unknown, or the answer to its question).
   */
  renderWorking() {
    let text = null;
    if (this.running && this.elicits.size) text = "waiting for your answer to a server's question";
    else if (this.running && this.blockedOn === 'approval') text = 'waiting for your approval';
    else if (this.running && this.blockedOn === 'unknown_outcome') text = `waiting for your resolution${this.detail ? ` (${this.detail})` : ''}`;
    else if (this.running && this.blockedOn !== 'error') text = this.detail ? `working… (${this.detail})` : 'working…';
    else if (!this.running && this.asked) text = 'waiting for your answer';
    this.working.hidden = !text;
    this.working.classList.toggle('you', !!text && text.startsWith('waiting for your'));
    if (text && this.working.textContent !== text) fill(this.working, text);
  }

  /** The message's element, made on first sight; `name` is who sent an input (a person, a service). */
  message(messageId, role = 'assistant', name = undefined) {
    let m = this.messages.get(messageId);
    if (m) return m;
    if (role === 'user') {
      const claimed = this.claimPending(messageId, name);
      if (claimed) {
        this.add(claimed.item); // where the stream puts it: after the turns before it
        m = { item: claimed.item, text: claimed.text, role };
        this.messages.set(messageId, m);
        return m;
      }
    }
    const text = document.createTextNode('');
    const who = role === 'user' && name && name !== 'web' ? String(name) : (ROLE_LABEL[role] ?? role);
    const item = el(
      'li',
      { class: `msg ${role} streaming`, 'data-message-id': messageId },
      el('span', { class: 'who' }, who),
      el('div', { class: 'text' }, text),
    );
    // One model output gives one message: an agent message right after another is a call that was
    // retried (or handed to a fallback model) after part of its text had streamed.
    const before = this.working.previousElementSibling;
    if (role === 'assistant' && before?.classList.contains('assistant')) {
      before.classList.add('superseded');
      before.append(el('span', { class: 'note' }, 'cut short; the model call was made again'));
    }
    m = { item, text, role };
    this.messages.set(messageId, m);
    this.add(item);
    return m;
  }

  /** A message is complete: an agent's text is shown as markdown (built as elements, never as HTML). */
  endMessage(messageId) {
    const m = this.messages.get(messageId);
    if (!m) return;
    m.item.classList.remove('streaming');
    if (m.role !== 'assistant' || m.item.classList.contains('markdown')) return;
    const box = m.item.querySelector('.text');
    fill(box, renderMarkdown(m.text.data));
    m.item.classList.add('markdown');
  }

  /**
   * A turn that ended without an answer (the stream's RUN_FINISHED result from a turn_end entry): the
   * agent's question to the person (ask_user), or a note that the turn was interrupted.
   */
  turnEnded(result) {
    if (result?.ended === 'ask_user') {
      this.asked = true;
      this.renderWorking();
      this.add(
        el(
          'li',
          { class: 'msg assistant question' },
          el('span', { class: 'who' }, 'The agent asks'),
          el('div', { class: 'text' }, String(result.question ?? '')),
        ),
      );
    } else if (result?.ended === 'interrupted') {
      const by = result.by ? ` by ${result.by}` : '';
      this.add(el('li', { class: 'note turn-end' }, `The turn was interrupted${by}; the agent waits for your next message.`));
    }
  }

  /** Links a sub-agent's tool call to the agent that works on it (once). */
  linkSubAgent(toolCallId, agentId) {
    const t = this.tools.get(toolCallId);
    if (!t || t.item.querySelector('a.agent-link')) return;
    t.head.append(el('a', { href: agentHref(agentId), class: 'agent-link child', 'data-agent-id': agentId }, `open ${agentId}`));
  }

  tool(toolCallId, name = 'tool') {
    let t = this.tools.get(toolCallId);
    if (t) return t;
    const args = document.createTextNode('');
    const status = el('span', { class: 'status' }, 'called');
    const result = el('pre', { class: 'result', hidden: true });
    const decision = el('div', { class: 'decision', hidden: true });
    const head = el('div', { class: 'tool-head' }, el('span', { class: 'tool-name' }, name), status);
    // ask_user's question shows as the agent's own message when the turn ends on it (turnEnded).
    const item = el(
      'li',
      { class: `tool running${name === 'ask_user' ? ' ask-user' : ''}`, 'data-tool-call-id': toolCallId },
      head,
      el('pre', { class: 'args' }, args),
      decision,
      result,
    );
    t = { item, head, args, status, result, decision };
    this.tools.set(toolCallId, t);
    this.add(item);
    return t;
  }

  toolArgsDone(toolCallId) {
    const t = this.tool(toolCallId);
    try {
      t.args.data = JSON.stringify(JSON.parse(t.args.data), null, 2);
    } catch {
      // arguments that are not JSON are shown as the model wrote them
    }
    // A call waiting for a person keeps saying so when its events arrive after the state (a page opened late).
    if (!this.waiting.has(toolCallId) && !this.unresolved.has(toolCallId)) fill(t.status, 'running');
  }

  toolResult(toolCallId, content) {
    const t = this.tool(toolCallId);
    t.item.classList.remove('running', 'awaiting');
    t.item.classList.add('done');
    fill(t.status, 'done');
    t.result.hidden = false;
    fill(t.result, String(content ?? ''));
    this.clearDecision(toolCallId);
  }

  /**
   * The recorded status of a call's result (history's tool_results; the stream's TOOL_CALL_RESULT has only
   * the text): a failed or skipped call — denied, interrupted, cut short — is not shown as done.
   */
  setResultStatus(toolCallId, status, metadata) {
    const t = this.tools.get(toolCallId);
    if (!t || !t.item.classList.contains('done')) return;
    this.showAttempts(t, metadata);
    if (status === 'Success') return;
    const word = { Failed: 'failed', Skipped: 'skipped' }[status] ?? String(status).toLowerCase();
    t.item.classList.add(word);
    fill(t.status, word);
  }

  /**
   * A call that took more than one attempt (its result's metadata: `attempts`, `attempt_errors`): "3
   * attempts" in the card, opening to why each earlier attempt failed.
   */
  showAttempts(t, metadata) {
    const attempts = Number(metadata?.attempts);
    if (!(attempts > 1) || t.attempts) return;
    const errors = Array.isArray(metadata.attempt_errors) ? metadata.attempt_errors : [];
    const omitted = Number(metadata.attempt_errors_omitted) > 0 ? [el('li', {}, `(${metadata.attempt_errors_omitted} more not kept)`)] : [];
    const lines = errors.map((e) => el('li', {}, `attempt ${e?.attempt}, ${e?.kind}, ${e?.at}: ${e?.error}`));
    t.attempts = el('details', { class: 'attempts' }, el('summary', {}, `${attempts} attempts`), el('ol', {}, ...lines, ...omitted));
    t.item.insertBefore(t.attempts, t.result);
  }

  /**
   * A turn's error with its Retry button. A budget stop is said as such — which budget, and the
   * agent's message, which tells what to do (a higher `budgets.<name>` through configure, or Retry).
   */
  errorItem(message, code) {
    const error = el('span', { class: 'error' });
    const retry = el('button', { type: 'button', class: 'retry' }, 'Retry');
    retry.addEventListener('click', () => this.run(retry, () => this.actions.onRetry(), error).then((ok) => ok && fill(retry, 'Retried')));
    const budget = budgetName(code);
    const title = budget ? `Stopped by its budget of ${budget} (${code}): ` : code ? `Error (${code}): ` : 'Error: ';
    return el(
      'li',
      { class: `run-error${budget ? ' budget' : ''}`, 'data-code': code ?? '' },
      el('strong', {}, title),
      el('span', { class: 'message' }, String(message ?? '')),
      ' ',
      retry,
      ' ',
      error,
    );
  }

  /**
   * Shows approve/deny on the calls in `awaiting` (the state's awaitingApproval) and removes them
   * from calls decided since. A call the view has not seen yet (the stream started later) gets a card.
   */
  setApprovals(awaiting = []) {
    keepScrolledToEnd(this.list, () => {
      const now = new Set(awaiting.map((a) => a.toolCallId));
      for (const id of this.waiting) if (!now.has(id)) this.clearDecision(id);
      for (const a of awaiting) {
        if (this.waiting.has(a.toolCallId)) continue;
        const t = this.tool(a.toolCallId, a.toolName);
        if (!t.args.data) {
          t.args.data = a.arguments ?? '';
          t.argsFromState = true;
        }
        this.waiting.add(a.toolCallId);
        t.item.classList.add('awaiting');
        fill(t.status, 'waits for your approval');
        fill(t.decision, this.decisionControls(a));
        t.decision.hidden = false;
      }
    });
  }

  /**
   * Shows done / failed / run again on the calls in `unknown` (the state's unknownOutcomes: their worker
   * died mid-run, so whether their effect happened is unknown) and removes them from calls resolved since.
   */
  setUnknownOutcomes(unknown = []) {
    keepScrolledToEnd(this.list, () => {
      const now = new Set(unknown.map((u) => u.toolCallId));
      for (const id of this.unresolved) {
        if (now.has(id)) continue;
        this.unresolved.delete(id);
        this.clearDecision(id);
      }
      for (const u of unknown) {
        if (this.unresolved.has(u.toolCallId)) continue;
        const t = this.tool(u.toolCallId, u.toolName);
        if (!t.args.data) {
          t.args.data = u.arguments ?? '';
          t.argsFromState = true;
        }
        this.unresolved.add(u.toolCallId);
        t.item.classList.add('awaiting');
        fill(t.status, 'outcome unknown: did it happen?');
        fill(t.decision, this.resolutionControls(u));
        t.decision.hidden = false;
      }
    });
  }

  /**
   * Shows an MCP server's open questions (the state's waits of kind `elicitation`) on their calls, with
   * the fields asked for as JSON to fill in, and accept / decline / cancel; removes those answered since.
   */
  setElicitations(waits = []) {
    keepScrolledToEnd(this.list, () => {
      const open = waits.filter((w) => w.kind === 'elicitation');
      const now = new Map(open.map((w) => [w.toolCallId, w.waitId]));
      for (const [id, waitId] of this.elicits) {
        if (now.get(id) === waitId) continue;
        this.elicits.delete(id);
        this.clearDecision(id);
      }
      for (const w of open) {
        if (this.elicits.get(w.toolCallId) === w.waitId) continue;
        const t = this.tool(w.toolCallId, w.toolName);
        this.elicits.set(w.toolCallId, w.waitId);
        t.item.classList.add('awaiting');
        fill(t.status, `${w.server ?? 'the server'} asks you`);
        fill(t.decision, this.elicitationControls(w));
        t.decision.hidden = false;
      }
      this.renderWorking();
    });
  }

  elicitationControls(w) {
    const schema = w.requestedSchema ?? {};
    const props = schema.properties ?? {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    const draft = {};
    for (const [name, p] of Object.entries(props)) if (p && p.default !== undefined) draft[name] = p.default;
    for (const name of required) if (draft[name] === undefined) draft[name] = '';
    const content = el('textarea', { class: 'reason', rows: '6', 'aria-label': 'Your answer (JSON)' }, JSON.stringify(draft, null, 2));
    const fields = Object.entries(props).map(([name, p]) =>
      el('li', {}, el('code', {}, name), `${required.includes(name) ? ' (required)' : ''}: ${String(p?.description ?? p?.title ?? p?.type ?? '')}`),
    );
    const error = el('span', { class: 'error' });
    const accept = el('button', { type: 'button', class: 'approve' }, 'Answer');
    const decline = el('button', { type: 'button', class: 'deny' }, 'Decline');
    const cancel = el('button', { type: 'button' }, 'Cancel');
    const group = [accept, decline, cancel];
    const answer = (button, how) => this.run(button, () => this.actions.onAnswer(w.waitId, how), error, group);
    accept.addEventListener('click', () => {
      let value;
      try {
        value = JSON.parse(content.value);
      } catch (err) {
        fill(error, `The answer is JSON: ${err.message}`);
        return;
      }
      answer(accept, { action: 'accept', content: value });
    });
    decline.addEventListener('click', () => answer(decline, { action: 'decline' }));
    cancel.addEventListener('click', () => answer(cancel, { action: 'cancel' }));
    return [
      el('p', { class: 'why' }, String(w.question ?? '')),
      fields.length ? el('ul', { class: 'fields' }, ...fields) : null,
      content,
      el('div', { class: 'buttons' }, accept, decline, cancel),
      error,
    ];
  }

  resolutionControls(u) {
    const text = el('input', { type: 'text', class: 'reason', placeholder: 'What happened (the result the model sees)', 'aria-label': 'What happened' });
    const error = el('span', { class: 'error' });
    const done = el('button', { type: 'button', class: 'approve' }, 'It happened');
    const failed = el('button', { type: 'button', class: 'deny' }, 'It did not');
    const retry = el('button', { type: 'button' }, 'Run it again');
    const group = [done, failed, retry];
    const resolve = (button, how) => this.run(button, () => this.actions.onResolve(u.toolCallId, how), error, group);
    done.addEventListener('click', () => resolve(done, { done: text.value.trim() || 'It happened (resolved by a person).' }));
    failed.addEventListener('click', () => resolve(failed, { failed: text.value.trim() || 'It did not happen (resolved by a person).' }));
    retry.addEventListener('click', () => resolve(retry, { retry: true }));
    // The key and start time let a person look the effect up where it would have happened (a service's log, a statement).
    const facts = el(
      'p',
      { class: 'effect' },
      'key ',
      el('code', { class: 'effect-key' }, String(u.key ?? '')),
      ', started ',
      el('time', { class: 'effect-started', datetime: String(u.startedAt ?? '') }, String(u.startedAt ?? '')),
    );
    return [
      u.reason ? el('p', { class: 'why' }, String(u.reason)) : null,
      u.key ? facts : null,
      el('div', { class: 'buttons' }, done, failed, retry, text),
      error,
    ];
  }

  clearDecision(toolCallId) {
    const t = this.tools.get(toolCallId);
    this.waiting.delete(toolCallId);
    if (!t) return;
    t.item.classList.remove('awaiting');
    t.decision.hidden = true;
    fill(t.decision);
    if (t.item.classList.contains('running')) fill(t.status, 'running');
  }

  decisionControls(a) {
    const reason = el('input', { type: 'text', class: 'reason', placeholder: 'Reason (shown to the model if denied)', 'aria-label': 'Reason' });
    const error = el('span', { class: 'error' });
    const approve = el('button', { type: 'button', class: 'approve' }, 'Approve');
    const deny = el('button', { type: 'button', class: 'deny' }, 'Deny');
    const decide = (button, approved) =>
      this.run(button, () => this.actions.onDecide(a.toolCallId, approved, reason.value.trim() || undefined), error, [approve, deny]);
    approve.addEventListener('click', () => decide(approve, true));
    deny.addEventListener('click', () => decide(deny, false));
    return [a.reason ? el('p', { class: 'why' }, String(a.reason)) : null, el('div', { class: 'buttons' }, approve, deny, reason), error];
  }

  /** Runs an action from a button: disabled while it runs, the error shown beside it. True when it succeeded. */
  async run(button, action, errorNode, group = [button]) {
    for (const b of group) b.disabled = true;
    fill(errorNode);
    try {
      await action();
      return true;
    } catch (err) {
      for (const b of group) b.disabled = false;
      fill(errorNode, err.message);
      return false;
    }
  }
}
