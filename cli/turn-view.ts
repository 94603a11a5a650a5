/**
 * Follows an agent while the chat is attached, whatever made it work: typed input, /retry, /model,
 * an approval, another client. Every POLL_MS it reads the history after the last entry shown, the
 * partial output of the running model call (from the worker's stream endpoint, or the call's heartbeat)
 * and the agent's state (queried only when the workflow's history grew), and shows
 * in order: model text as it streams, tool calls and results, approval requests, errors, answers. It
 * draws the prompt once the agent rests (waits for input, an approval or a fix).
 */
import type { HistoryEntry } from '../agent/index';
import type { PartialOutput } from '../activities/call-model';
import type { AgentStatus } from '../workflows/messages';
import type { AgentClient } from '../client/agent-client';
import type { ChatScreen } from './chat-screen';
import { formatOtherInput, formatToolActivity, formatToolProgress } from './format';
import { unknownKey, unknownOutcomeLine } from './unknown-outcome-lines';

const POLL_MS = 200;
/** Entries arrived while looking: look again soon, not at once (never a busy loop). */
const AGAIN_MS = 20;

export interface FollowerOptions {
  agents: AgentClient;
  agentId: string;
  screen: ChatScreen;
  /** The state when the chat attached: its error and approval requests were said already. */
  initial: AgentStatus;
  /** Whether input #inputSeq was typed in this chat (so it is not echoed); waits for sends in flight. */
  typedHere(inputSeq: number): Promise<boolean>;
  /** Something the person did is still in flight: no prompt yet. */
  busy(): boolean;
}

export class AgentFollower {
  private shownSeq: number;
  /** The running model call's text shown so far, and its attempt. */
  private streamed = '';
  private attempt = 0;
  private readonly shownApprovals = new Set<string>();
  /** Progress lines of running tools shown so far (a line shows once). */
  private readonly shownProgress = new Set<string>();
  private shownError: string | undefined;
  private saidStopping = false;
  /** The agent worked when last looked at: only then can a model call be streaming. */
  private working = true;
  private failing = false;
  /** The workflow's run and history length when last queried to the end, and the state then (see poll). */
  private queried: { mark: string; state: AgentStatus } | undefined;
  private stopped = false;
  private nudged = false;
  private wake = () => {};
  private loop: Promise<void> = Promise.resolve();

  constructor(private readonly o: FollowerOptions) {
    this.shownSeq = o.initial.lastSeq;
    for (const a of o.initial.awaitingApproval) this.shownApprovals.add(a.toolCallId);
    for (const u of o.initial.unknownOutcomes ?? []) this.shownApprovals.add(unknownKey(u)); // said on attaching
    this.shownError = errorKey(o.initial.lastError);
  }

  start(): void {
    this.loop = this.run();
  }

  /** Whether the agent was working on a turn when last looked at (Ctrl-C then interrupts it). */
  get agentWorking(): boolean {
    return this.working;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }

  /** Look now rather than at the next tick: the person just did something. */
  nudge(): void {
    this.nudged = true;
    this.wake();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let again = false;
      try {
        again = await this.poll();
        this.failing = false;
      } catch (err) {
        // Said once, and the prompt stays usable (/quit) while the agent cannot be read.
        if (!this.failing) this.o.screen.line(`(cannot follow the agent: ${(err as Error).message.split('\n')[0]})`);
        this.failing = true;
        if (!this.o.busy()) this.o.screen.showPrompt();
      }
      if (this.stopped) break;
      const wait = this.nudged ? 0 : again ? AGAIN_MS : POLL_MS;
      this.nudged = false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** One look at the agent; true when it changed meanwhile and should be looked at again at once. */
  private async poll(): Promise<boolean> {
    const { agents, agentId } = this.o;
    // While the workflow's history stands still, neither entries nor state can change (both change only in
    // workflow tasks, which add events): look at the running call's output alone, with no query (each is
    // a billable Temporal action; a describe is not).
    const mark = await agents
      .handle(agentId)
      .describe()
      .then((d) => `${d.runId}/${d.historyLength}`)
      .catch(() => undefined);
    if (mark !== undefined && this.queried?.mark === mark) {
      const partial = this.working ? await agents.partialOutput(agentId).catch(() => null) : null;
      await this.showLive(this.queried.state, partial);
      return false;
    }
    this.queried = undefined;
    // In this order: a partial output read before the state belongs to a call after every entry the
    // state counts, so if the state counts no entry beyond those shown, the text follows them.
    const fresh = await agents.history(agentId, this.shownSeq);
    const partial = this.working ? await agents.partialOutput(agentId).catch(() => null) : null;
    const state = await agents.state(agentId);
    this.working = state.blockedOn === null;
    if (state.lastSeq < this.shownSeq) {
      this.shownSeq = 0; // reset: a new, empty history
      this.endText();
      return true;
    }
    for (const entry of fresh) {
      await this.show(entry);
      this.shownSeq = entry.seq;
    }
    if (state.lastSeq !== this.shownSeq) return true;
    // The mark was read before the queries: the same mark next time means nothing changed since.
    if (mark !== undefined) this.queried = { mark, state };
    await this.showLive(state, partial);
    return false;
  }

  /** What shows between entries: the streaming text, tool progress, errors, approvals, the prompt. */
  private async showLive(state: AgentStatus, partial: PartialOutput | null): Promise<void> {
    const { screen } = this.o;
    this.showPartial(partial);
    if (this.working && state.runState === 'WaitingToolResults') await this.showToolProgress();
    else this.shownProgress.clear();
    this.showError(state);
    for (const a of state.awaitingApproval) {
      if (this.shownApprovals.has(a.toolCallId)) continue;
      this.shownApprovals.add(a.toolCallId);
      this.endText();
      screen.line(`  ? ${a.toolName} ${a.arguments} needs approval (${a.reason}): /approve ${a.toolCallId} or /deny ${a.toolCallId} [reason]`);
    }
    for (const u of state.unknownOutcomes ?? []) {
      if (this.shownApprovals.has(unknownKey(u))) continue;
      this.shownApprovals.add(unknownKey(u));
      this.endText();
      screen.line(unknownOutcomeLine(u));
    }
    if (state.stopping && !this.saidStopping) {
      this.saidStopping = true;
      screen.line('(the agent is stopping; /quit leaves the chat)');
    }
    if ((state.blockedOn !== null || state.stopping) && !this.o.busy()) screen.showPrompt();
  }

  private async show(entry: HistoryEntry): Promise<void> {
    const { screen } = this.o;
    switch (entry.kind) {
      case 'model_input':
        if (entry.inputSeq === undefined || !(await this.o.typedHere(entry.inputSeq))) screen.line(formatOtherInput(entry));
        break;
      case 'model_output':
        this.finishText(entry.contents.join(''));
        for (const line of formatToolActivity(entry)) screen.line(line);
        break;
      case 'tool_results':
        for (const line of formatToolActivity(entry)) screen.line(line);
        break;
      case 'turn_end':
        // The turn ends without an answer: a question for the person, or an interrupt.
        if (entry.reason === 'ask_user') this.finishText(entry.question ?? '');
        else {
          if (this.streamed) screen.stream(' … (interrupted)');
          this.endText();
          screen.line(`(turn interrupted${entry.by ? ` by ${entry.by}` : ''}; the agent waits for your input)`);
        }
        break;
      case 'compaction':
        // The model will see a summary in place of the older turns: said once, as progress.
        screen.line(`  · context compacted: entries #1–#${entry.throughSeq} summarised by ${entry.invocation.model}`);
        break;
      default:
        break; // a system instruction change is said by the command that made it
    }
  }

  private showPartial(partial: PartialOutput | null): void {
    if (!partial?.text) return;
    const { screen } = this.o;
    let more = this.streamed && partial.attempt !== this.attempt ? undefined : continuation(this.streamed, partial.text);
    if (more === undefined) {
      // A retried call starts its text over.
      screen.stream(' … (retrying)');
      screen.endStream();
      this.streamed = '';
      more = partial.text;
    }
    if (!this.streamed && more) screen.stream('agent> ');
    screen.stream(more);
    this.streamed += more;
    this.attempt = partial.attempt;
  }

  /** What running tools report (an MCP tool's progress), a line per new report. */
  private async showToolProgress(): Promise<void> {
    const running = await this.o.agents.toolProgress(this.o.agentId).catch(() => []);
    for (const { activityId, details } of running) {
      const line = formatToolProgress(details);
      const key = `${activityId} ${line}`;
      if (!line || this.shownProgress.has(key)) continue;
      this.shownProgress.add(key);
      this.o.screen.line(line);
    }
  }

  /** The model call's output is recorded: the rest of its text, after what streamed. */
  private finishText(text: string): void {
    const { screen } = this.o;
    const more = this.streamed ? continuation(this.streamed, text) : undefined;
    if (more !== undefined) screen.stream(more);
    else if (this.streamed) {
      screen.stream(' … (retried)');
      screen.line(`agent> ${text}`);
    } else if (text) screen.line(`agent> ${text}`);
    this.endText();
  }

  private showError(state: AgentStatus): void {
    const key = errorKey(state.lastError);
    if (!state.lastError || key === this.shownError) return;
    this.shownError = key;
    if (this.streamed) this.o.screen.stream(' … (failed)');
    this.endText();
    const message = state.lastError.message.split('\n')[0];
    this.o.screen.line(`agent> (blocked by an error: ${message}) /retry tries again, /model provider:model switches model.`);
  }

  private endText(): void {
    this.o.screen.endStream();
    this.streamed = '';
    this.attempt = 0;
  }
}

const errorKey = (error: AgentStatus['lastError']) => (error ? `${error.at} ${error.code} ${error.message}` : undefined);

/**
 * What `text` adds to `shown`, or undefined if it does not continue it. Partial output carries only
 * the tail of a long text, so what was shown is also looked for by its last characters.
 */
export function continuation(shown: string, text: string): string | undefined {
  if (text.startsWith(shown)) return text.slice(shown.length);
  const anchor = shown.slice(-200);
  const at = anchor.length === 200 ? text.indexOf(anchor) : -1;
  return at >= 0 ? text.slice(at + anchor.length) : undefined;
}
