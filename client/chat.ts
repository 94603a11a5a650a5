/**
 * The console chat (the seeds' ConsoleTui) attached to a durable agent. Input goes in by update as
 * soon as it is typed (it queues in the agent if a turn is running), answers are awaited server-side,
 * commands work at any time (so a waiting tool call can be approved mid-turn). Leaving the chat leaves
 * the agent running in Temporal. On a terminal, output streams as it forms; piped, it reads one message
 * per line, prints each reply on stdout (progress on stderr) and exits at end of input.
 */
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { type AgentClient, outcomeText } from './agent-client';
import { checkModel } from './commands';
import { formatEntry, formatProgress } from './format';
import { watchTurn } from './turn-view';

export interface ChatOptions {
  agents: AgentClient;
  agentId: string;
  input: Readable;
  output: Writable;
  interactive: boolean;
}

export async function runChat(o: ChatOptions): Promise<void> {
  const print = (line = '') => o.output.write(`${line}\n`);
  const rl = readline.createInterface({ input: o.input, terminal: o.interactive, ...(o.interactive ? { output: o.output } : {}) });
  rl.setPrompt('you> ');
  const prompt = () => o.interactive && rl.prompt(true);
  if (o.interactive) {
    const s = await o.agents.state(o.agentId);
    print(`Attached to agent "${o.agentId}" (${s.config.model}; ${s.runState}${s.blockedOn ? `, waiting for ${s.blockedOn}` : ''}; ${s.entryCount} entries). /help for commands.`);
    if (s.lastError) print(`It is blocked by an error: ${s.lastError.message} — /model or /retry.`);
    for (const a of s.awaitingApproval) print(`  ? ${a.toolName} ${a.arguments} needs approval: /approve ${a.toolCallId} or /deny ${a.toolCallId}`);
  }
  let turns: Promise<void> = Promise.resolve();
  prompt();
  for await (const line of rl) {
    const text = line.trim();
    try {
      if (text.startsWith('/')) {
        if (await command(o, text, print)) break;
      } else if (text) {
        // Sent now, so input order is kept even while an earlier turn is still running.
        const { inputSeq } = await o.agents.send(o.agentId, line);
        turns = turns.then(() => showTurn(o, inputSeq, print)).catch((err) => void print(`(error: ${(err as Error).message})`));
        if (!o.interactive) await turns; // piped: strictly one reply per line, in order
      }
    } catch (err) {
      print(`(error: ${(err as Error).message.split('\n')[0]})`);
    }
    prompt();
  }
  await turns;
  rl.close();
}

async function showTurn(o: ChatOptions, inputSeq: number, print: (l?: string) => void) {
  if (o.interactive) {
    await watchTurn(o.agents, o.agentId, inputSeq, (t) => o.output.write(t));
    return;
  }
  const outcome = await o.agents.waitForAnswer(o.agentId, inputSeq);
  if (outcome.status === 'answered') {
    const entries = await o.agents.history(o.agentId, outcome.inputEntrySeq);
    for (const l of formatProgress(entries.filter((e) => e.seq < outcome.answer.seq))) process.stderr.write(`${l}\n`);
  }
  print(outcomeText(outcome));
}

const HELP = [
  '/history            the agent\'s history',
  '/state              run state, configuration, usage',
  '/notebook           the memory notebook',
  '/system TEXT        change the system instruction',
  '/model p:model      change the model',
  '/approve [id]       approve a waiting tool call (the first, without id)',
  '/deny [id] [reason] deny a waiting tool call',
  '/retry              try a failed model call again',
  '/reset              start the agent over with an empty history (configuration kept)',
  '/quit               detach; the agent keeps running',
].join('\n');

/** Returns true when the chat should end. */
async function command(o: ChatOptions, text: string, print: (l?: string) => void): Promise<boolean> {
  const [name, ...args] = text.split(/\s+/);
  const rest = text.slice(name.length).trim();
  const a = o.agents;
  switch (name) {
    case '/quit':
    case '/exit':
      print(`Detached. The agent "${o.agentId}" keeps running in Temporal.`);
      return true;
    case '/history':
      for (const e of await a.history(o.agentId)) for (const l of formatEntry(e)) print(l);
      break;
    case '/state':
      print(JSON.stringify(await a.state(o.agentId), null, 2));
      break;
    case '/notebook': {
      const notebook = (await a.state(o.agentId)).notebook;
      print(notebook.trim() ? notebook : '(the notebook is empty)');
      break;
    }
    case '/system':
      await a.configure(o.agentId, { systemInstruction: rest });
      print(rest ? 'System instruction set.' : 'System instruction cleared.');
      break;
    case '/model':
      await a.configure(o.agentId, { model: checkModel(rest) });
      print(`Model: ${rest}.`);
      break;
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
    case '/retry':
      await a.retry(o.agentId);
      print('Retrying.');
      break;
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
