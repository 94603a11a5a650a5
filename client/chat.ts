/**
 * The console chat (the seeds' ConsoleTui) attached to a durable agent. Input goes in by update, the
 * answer is awaited server-side; leaving the chat leaves the agent running in Temporal.
 * On a terminal it prompts; otherwise it reads one message per line and exits at end of input.
 */
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { type AgentClient, outcomeText } from './agent-client';
import { formatEntry, formatProgress } from './format';

export interface ChatOptions {
  agents: AgentClient;
  agentId: string;
  input: Readable;
  output: Writable;
  interactive: boolean;
}

export async function runChat(o: ChatOptions): Promise<void> {
  const print = (line = '') => o.output.write(`${line}\n`);
  // Piped: stdout carries only the replies, one per input line; progress goes to stderr.
  const progress = o.interactive ? print : (line = '') => process.stderr.write(`${line}\n`);
  const rl = readline.createInterface({ input: o.input, terminal: o.interactive, ...(o.interactive ? { output: o.output } : {}) });
  const prompt = () => o.interactive && rl.prompt();
  rl.setPrompt('you> ');
  if (o.interactive) {
    const state = await o.agents.state(o.agentId);
    print(`Attached to agent "${o.agentId}" (${state.config.model}, ${state.runState}, ${state.entryCount} entries). /help for commands.`);
  }
  prompt();
  for await (const line of rl) {
    const text = line.trim();
    if (text.startsWith('/')) {
      if (await command(o, text, print)) break;
    } else if (text) {
      await turn(o, line, print, progress);
    }
    prompt();
  }
  rl.close();
}

async function turn(o: ChatOptions, text: string, print: (l?: string) => void, progress: (l?: string) => void) {
  const { inputSeq } = await o.agents.send(o.agentId, text);
  const outcome = await o.agents.waitForAnswer(o.agentId, inputSeq);
  if (outcome.status === 'answered') {
    const entries = await o.agents.history(o.agentId, outcome.inputEntrySeq);
    for (const l of formatProgress(entries.filter((e) => e.seq < outcome.answer.seq))) progress(l);
  }
  print(o.interactive ? `agent> ${outcomeText(outcome)}` : outcomeText(outcome));
}

/** Returns true when the chat should end. */
async function command(o: ChatOptions, text: string, print: (l?: string) => void): Promise<boolean> {
  const [name] = text.split(/\s+/, 1);
  switch (name) {
    case '/quit':
    case '/exit':
      print(`Detached. The agent "${o.agentId}" keeps running in Temporal.`);
      return true;
    case '/history':
      for (const e of await o.agents.history(o.agentId)) for (const l of formatEntry(e)) print(l);
      return false;
    case '/state':
      print(JSON.stringify(await o.agents.state(o.agentId), null, 2));
      return false;
    case '/help':
      print('/history  the agent\'s history\n/state    its run state, config and usage\n/quit     detach (the agent keeps running)');
      return false;
    default:
      print(`Unknown command ${name}. /help lists them.`);
      return false;
  }
}
