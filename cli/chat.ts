/**
 * The console chat (the seeds' ConsoleTui) attached to a durable agent. Leaving the chat leaves the
 * agent running in Temporal.
 *
 * On a terminal, input goes in by update as soon as it is typed (it queues in the agent if a turn is
 * running), commands work at any time (so a waiting tool call can be approved mid-turn), and one
 * follower shows everything the agent does, in order, whatever made it work — typed input, /retry,
 * /model, another client — with the prompt drawn again once it rests.
 *
 * Piped, it reads one message per line, prints each reply on stdout (progress on stderr) and ends at
 * end of input; a turn that ends in an error ends it with that error (exit status 1).
 */
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { type AgentError, LivecontextError, type TurnOutcome } from '../agent/index';
import type { AgentClient } from '../client/agent-client';
import { outcomeText } from '../client/outcome-text';
import { ChatScreen } from './chat-screen';
import { checkModel } from './model-check';
import { CHAT_MODEL_WORDS, modelWarning } from '../client/model-warning';
import { formatEntry, formatProgress } from './format';
import { describeState, runStateWord } from '../client/state-view';
import { AgentFollower } from './turn-view';
import { terminalText } from './terminal-text';
import { resolution, unknownOutcomeLine } from './unknown-outcome-lines';
import { watchWorkerWhile } from './worker-watch';

export interface ChatOptions {
  agents: AgentClient;
  agentId: string;
  input: Readable;
  output: Writable;
  interactive: boolean;
}

type Print = (line?: string) => void;
const sayOnStderr = (line: string) => process.stderr.write(`${terminalText(line)}\n`);
/** An error in a line: a refused update says why (its cause holds the agent's words), not "Workflow Update failed". */
const firstLine = (err: unknown) => {
  const e = err instanceof WorkflowUpdateFailedError && err.cause ? err.cause : err;
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
};

export async function runChat(o: ChatOptions): Promise<void> {
  if (o.interactive) await runOnTerminal(o);
  else await runPiped(o);
}

async function runOnTerminal(o: ChatOptions): Promise<void> {
  const { agents, agentId } = o;
  const rl = readline.createInterface({ input: o.input, output: o.output, terminal: true });
  rl.setPrompt('you> ');
  const screen = new ChatScreen(rl, o.output);
  const print: Print = (line) => screen.line(line);

  const s = await agents.state(agentId);
  print(`Attached to agent "${agentId}" (${s.config.model}; ${runStateWord(s)}; ${s.entryCount} entries). /help for commands.`);
  if (s.lastError) print(`It is blocked by an error: ${s.lastError.message.split('\n')[0]} — /retry or /model.`);
  for (const a of s.awaitingApproval) print(`  ? ${a.toolName} ${a.arguments} needs approval: /approve ${a.toolCallId} or /deny ${a.toolCallId}`);
  for (const u of s.unknownOutcomes ?? []) print(unknownOutcomeLine(u));

  // Inputs typed here, so the follower does not echo them back.
  const typed = new Set<number>();
  const sending = new Set<Promise<unknown>>();
  let pendingLines = 0;
  rl.on('line', () => pendingLines++);
  const follower = new AgentFollower({
    agents,
    agentId,
    screen,
    initial: s,
    busy: () => pendingLines > 0,
    typedHere: async (inputSeq) => {
      await Promise.allSettled([...sending]);
      return typed.has(inputSeq);
    },
  });
  // Ctrl-C interrupts the turn the agent is working on; when it is idle, or pressed again within 2 s, it detaches as /quit does.
  let lastCtrlC = 0;
  rl.on('SIGINT', () => {
    const again = Date.now() - lastCtrlC < 2_000;
    lastCtrlC = Date.now();
    if (again || !follower.agentWorking) return rl.close();
    print('(interrupting the turn… Ctrl-C again to detach)');
    agents.interrupt(agentId, 'chat').then(
      ({ interrupted }) => {
        if (!interrupted) print('(nothing to interrupt)');
        follower.nudge();
      },
      (err: unknown) => print(`(could not interrupt: ${firstLine(err)})`),
    );
  });
  follower.start();
  // While the agent works, a worker killed under it is said within seconds (the follower sees only that
  // nothing changes): as `send --wait` does, by the task-queue probe.
  const detaching = new AbortController();
  const untilDetached = new Promise<void>((resolve) => detaching.signal.addEventListener('abort', () => resolve()));
  const workerWatch = watchWorkerWhile(untilDetached, {
    agents,
    agentId,
    awaiting: 'the answer',
    leaving: '/quit detaches; the agent keeps its place.',
    say: print,
    onlyWhile: () => follower.agentWorking,
  });
  let quit = false;
  try {
    for await (const line of rl) {
      const text = line.trim();
      try {
        if (text.startsWith('/')) {
          quit = await command(o, text, print, true);
          if (quit) break;
        } else if (text) {
          const sent = watchWorkerWhile(agents.send(agentId, line), {
            agents,
            agentId,
            awaiting: 'the agent to take your message',
            leaving: '/quit detaches; the message may still be taken later.',
            say: print,
            slowNotice: true,
          });
          sending.add(sent);
          try {
            typed.add((await sent).inputSeq);
          } finally {
            sending.delete(sent);
          }
        }
      } catch (err) {
        print(`(error: ${firstLine(err)})`);
      } finally {
        pendingLines--;
        follower.nudge();
      }
    }
  } finally {
    detaching.abort();
    await Promise.all([follower.stop(), workerWatch]);
    rl.close();
  }
  if (!quit) print(detached(agentId)); // Ctrl-D or Ctrl-C
}

const detached = (agentId: string) => `Detached. The agent "${agentId}" keeps running in Temporal.`;

/** A piped chat whose turn did not end in an answer: the CLI says why on stderr and exits 1. */
/** A piped chat's turn that could not be answered (the agent is blocked or stopped): later lines would wait for ever. */
export class ChatTurnError extends LivecontextError {
  constructor(message: string) {
    super('TURN_NOT_ANSWERED', message);
  }
}

async function runPiped(o: ChatOptions): Promise<void> {
  const rl = readline.createInterface({ input: o.input, terminal: false });
  const print: Print = (line = '') => o.output.write(`${terminalText(line)}\n`);
  try {
    for await (const line of rl) {
      const text = line.trim();
      if (text.startsWith('/')) {
        if (await command(o, text, print, false)) break;
      } else if (text) {
        // One update for the line and its answer, as `ask`: strictly one reply per line, in order. A worker
        // that is gone meanwhile is said on stderr, as `send --wait` says it; the wait goes on.
        const asked = await o.agents.askTracked(o.agentId, line);
        const watch = { agents: o.agents, agentId: o.agentId, leaving: 'Ctrl-C stops waiting; the agent keeps the line.', say: sayOnStderr };
        await watchWorkerWhile(asked.taken, { ...watch, awaiting: 'the agent to take the line', slowNotice: true });
        await printReply(o, watchWorkerWhile(asked.outcome, { ...watch, awaiting: 'the answer' }), print);
      }
    }
  } finally {
    rl.close();
  }
}

async function printReply(o: ChatOptions, turn: Promise<TurnOutcome>, print: Print): Promise<void> {
  const { agents, agentId } = o;
  const outcome = await turn;
  const { inputSeq } = outcome;
  if (outcome.status === 'answered') {
    const entries = await agents.history(agentId, outcome.inputEntrySeq);
    for (const l of formatProgress(entries.filter((e) => e.seq < outcome.answer.seq))) sayOnStderr(l);
  }
  // Later lines would wait behind a blocked agent for ever: stop here, and say how to unblock it.
  if (outcome.status === 'error') {
    throw new ChatTurnError(
      `Agent "${agentId}" is blocked by an error (input #${inputSeq}): ${outcome.error.message.split('\n')[0]} — \`livecontext retry ${agentId}\` tries again, \`livecontext configure ${agentId} --model provider:model\` switches model.`,
    );
  }
  if (outcome.status === 'stopped') throw new ChatTurnError(`Agent "${agentId}" stopped before answering input #${inputSeq}.`);
  print(outcomeText(outcome));
}

const HELP = [
  "/history            the agent's history",
  '/state              run state, configuration, usage',
  '/notebook           the memory notebook',
  '/system TEXT        change the system instruction',
  '/model [p:model]    show or change the model',
  '/approve [id]       approve a waiting tool call (the first, without id)',
  '/deny [id] [reason] deny a waiting tool call',
  '/resolve [id] --done TEXT | --failed TEXT | --retry',
  '                    a tool call whose outcome is unknown: it happened, it did not, or run it again',
  '/retry              try a failed model call again',
  '/interrupt          end the running turn now (also Ctrl-C while the agent works)',
  '/reset              start the agent over with an empty history (configuration kept)',
  '/quit               detach; the agent keeps running',
].join('\n');

/**
 * Returns true when the chat should end. `followed`: the chat follows the agent (on a terminal), so
 * what the agent records — an interrupted turn, say — shows through the follower, once.
 */
async function command(o: ChatOptions, text: string, print: Print, followed: boolean): Promise<boolean> {
  const [name, ...args] = text.split(/\s+/);
  const rest = text.slice(name.length).trim();
  const a = o.agents;
  switch (name) {
    case '/quit':
    case '/exit':
      print(detached(o.agentId));
      return true;
    case '/history':
      for (const e of await a.history(o.agentId)) for (const l of formatEntry(e)) print(l);
      break;
    case '/state':
      print(describeState(o.agentId, await a.state(o.agentId)));
      break;
    case '/notebook': {
      const notebook = (await a.state(o.agentId)).notebook;
      print(notebook.trim() ? notebook : '(the notebook is empty)');
      break;
    }
    case '/system': {
      const s = await a.configure(o.agentId, { systemInstruction: rest });
      print(rest ? 'System instruction set.' : 'System instruction cleared.');
      await untilRetryStarts(a, o.agentId, s.lastError);
      break;
    }
    case '/model': {
      if (!rest) {
        const { config } = await a.state(o.agentId);
        const then = config.fallbackModels?.length ? `, then ${config.fallbackModels.join(', ')} when it fails` : '';
        print(`Model: ${config.model}${then}. /model provider:model changes it.`);
        break;
      }
      const s = await a.configure(o.agentId, { model: checkModel(rest) });
      print(`Model: ${rest}.`);
      // As `livecontext start` and `configure` do: a model no worker can call is said now, not at the next turn.
      const warning = await modelWarning(a, o.agentId, rest, await a.agentTaskQueue(o.agentId), CHAT_MODEL_WORDS);
      if (warning) print(`(warning: ${warning})`);
      await untilRetryStarts(a, o.agentId, s.lastError);
      break;
    }
    case '/approve':
    case '/deny': {
      const waiting = (await a.state(o.agentId)).awaitingApproval;
      const id = args[0] && waiting.some((w) => w.toolCallId === args[0]) ? args[0] : waiting[0]?.toolCallId;
      if (!id) {
        print('No tool call is waiting for approval.');
        break;
      }
      const reason = id === args[0] ? args.slice(1).join(' ') : args.join(' ');
      await a.decide(o.agentId, { toolCallId: id, approved: name === '/approve', by: 'chat', ...(reason ? { reason } : {}) });
      print(`${name === '/approve' ? 'Approved' : 'Denied'} ${id}.`);
      break;
    }
    case '/resolve': {
      const unknown = (await a.state(o.agentId)).unknownOutcomes ?? [];
      const named = args[0] && !args[0].startsWith('--') ? args[0] : undefined;
      const id = named ?? unknown[0]?.toolCallId;
      const how = resolution(named ? args.slice(1) : args);
      if (!id) print('No tool call waits on an unknown outcome.');
      else if (!how) print('Say what happened: /resolve [id] --done TEXT (it happened), --failed TEXT (it did not) or --retry (run it again).');
      else {
        // A call that is not unknown (a typo, resolved already) is refused by the agent, saying why.
        await a.resolveToolCall(o.agentId, { toolCallId: id, ...how, by: 'chat' });
        print(`Resolved ${id}: ${'done' in how ? 'done' : 'failed' in how ? 'failed' : 'it runs again'}.`);
      }
      break;
    }
    case '/retry': {
      const { lastError } = await a.state(o.agentId);
      if (!lastError) {
        print('Nothing to retry: the agent is not blocked by an error.');
        break;
      }
      await a.retry(o.agentId);
      print('Retrying.');
      await untilRetryStarts(a, o.agentId, lastError);
      break;
    }
    case '/interrupt': {
      const { interrupted } = await a.interrupt(o.agentId, 'chat');
      // Followed, the interrupted turn is said as the agent records it ("(turn interrupted by chat; …)").
      if (!interrupted) print('Nothing to interrupt: the agent waits for input.');
      else if (!followed) print('Interrupted: the agent waits for your input.');
      break;
    }
    case '/reset':
      await a.reset(o.agentId);
      print('The agent starts over with an empty history.');
      break;
    case '/help':
      print(HELP);
      break;
    default:
      print(`Unknown command ${name}. /help lists them.`);
  }
  return false;
}

/**
 * A retry (asked for, or by a new configuration) clears the error when the agent gets to it: waiting
 * for that, briefly, keeps the chat from offering its prompt for the moment in between.
 */
async function untilRetryStarts(agents: AgentClient, agentId: string, error: AgentError | null): Promise<void> {
  if (!error) return;
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline) {
    const now = (await agents.state(agentId)).lastError;
    if (now?.at !== error.at || now.message !== error.message) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
