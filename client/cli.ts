/**
 * The `livecontext` command line. Every command has --help; errors a user will meet print one line
 * and exit non-zero.
 */
import { parseArgs } from 'node:util';
import path from 'node:path';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { InputRejectedError } from '../agent';
import { outcomeText } from './agent-client';
import { runChat } from './chat';
import { UserError, connectAgents, defaultModel } from './connect';
import { formatEntry } from './format';
import { up } from './up';
import { startDevServer } from '../worker/dev-server';
import { startWorker } from '../worker/run-worker';
import { loadToolsModule } from '../worker/tools-module';

interface Command {
  usage: string;
  summary: string;
  options?: NonNullable<Parameters<typeof parseArgs>[0]>['options'];
  run(args: { positionals: string[]; values: Record<string, string | boolean | undefined> }): Promise<number | void>;
}

const commands: Record<string, Command> = {
  up: {
    usage: 'livecontext up [agent-id] [--model provider:model]',
    summary: 'Dev server (unless TEMPORAL_ADDRESS is set), a worker, and a chat with an agent (what `npm start` runs).',
    options: { model: { type: 'string' } },
    async run({ positionals, values }) {
      await up({ agentId: positionals[0] ?? process.env.LIVECONTEXT_AGENT_ID ?? 'demo', model: (values.model as string) ?? defaultModel() });
    },
  },
  dev: {
    usage: 'livecontext dev',
    summary: 'Runs the local dev server (SQLite under .livecontext/, Web UI) and a worker in the foreground.',
    async run() {
      const server = await startDevServer({ log: (m) => console.error(m) });
      console.log(`Temporal server: ${server.address}${server.started ? '' : ' (already running)'}`);
      console.log(`Web UI:          ${server.uiUrl}`);
      const worker = await startWorker({ address: server.address });
      console.log('Worker running. Ctrl-C to stop.');
      await untilSignal();
      await worker.stop();
      await server.stop();
    },
  },
  worker: {
    usage: 'livecontext worker [--tools ./my-tools.js] [--workspace DIR]',
    summary: 'Runs a worker against TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (Temporal environment configuration).',
    options: { tools: { type: 'string' }, workspace: { type: 'string' } },
    async run({ values }) {
      const tools = values.tools ? await loadToolsModule(values.tools as string) : undefined;
      const worker = await startWorker({ tools, workspaceRoot: values.workspace as string | undefined });
      console.log(`Worker running on ${worker.settings.address}, namespace ${worker.settings.namespace}. Ctrl-C to stop.`);
      await Promise.race([untilSignal(), worker.done]);
      await worker.stop();
    },
  },
  start: {
    usage: 'livecontext start <agent-id> [--model provider:model] [--system TEXT] [--tools a,b]',
    summary: 'Starts a new agent.',
    options: { model: { type: 'string' }, system: { type: 'string' }, tools: { type: 'string' } },
    async run({ positionals, values }) {
      const agentId = need(positionals[0], 'agent-id');
      const { agents } = await connectAgents();
      try {
        await agents.start(agentId, {
          model: (values.model as string) ?? defaultModel(),
          ...(values.system ? { systemInstruction: values.system as string } : {}),
          ...(values.tools ? { tools: (values.tools as string).split(',').filter(Boolean) } : {}),
        });
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) throw new UserError(`Agent "${agentId}" already exists.`);
        throw err;
      }
      console.log(`Started agent "${agentId}".`);
    },
  },
  send: {
    usage: 'livecontext send <agent-id> <text> [--wait]',
    summary: 'Sends input; with --wait, prints the answer.',
    options: { wait: { type: 'boolean' } },
    async run({ positionals, values }) {
      const agentId = need(positionals[0], 'agent-id');
      const text = need(positionals.slice(1).join(' ') || undefined, 'text');
      const { agents } = await connectAgents();
      const { inputSeq } = await agents.send(agentId, text);
      if (!values.wait) return void console.log(`Accepted as input #${inputSeq}.`);
      const outcome = await agents.waitForAnswer(agentId, inputSeq);
      console.log(outcomeText(outcome));
      return outcome.status === 'answered' || outcome.status === 'ignored' ? 0 : 1;
    },
  },
  chat: {
    usage: 'livecontext chat <agent-id>',
    summary: 'Chats with a running agent; /quit detaches and leaves it running.',
    async run({ positionals }) {
      const agentId = need(positionals[0], 'agent-id');
      const { agents } = await connectAgents();
      await agents.state(agentId);
      await runChat({ agents, agentId, input: process.stdin, output: process.stdout, interactive: !!process.stdin.isTTY });
    },
  },
  state: {
    usage: 'livecontext state <agent-id>',
    summary: 'Prints the run state, configuration, pending tool calls, last error and usage (JSON).',
    async run({ positionals }) {
      const { agents } = await connectAgents();
      console.log(JSON.stringify(await agents.state(need(positionals[0], 'agent-id')), null, 2));
    },
  },
  history: {
    usage: 'livecontext history <agent-id> [--json]',
    summary: 'Prints the history entries.',
    options: { json: { type: 'boolean' } },
    async run({ positionals, values }) {
      const { agents } = await connectAgents();
      const entries = await agents.history(need(positionals[0], 'agent-id'));
      if (values.json) console.log(JSON.stringify(entries, null, 2));
      else for (const e of entries) for (const l of formatEntry(e)) console.log(l);
    },
  },
  stop: {
    usage: 'livecontext stop <agent-id>',
    summary: 'Ends an agent after its current step.',
    async run({ positionals }) {
      const agentId = need(positionals[0], 'agent-id');
      const { agents } = await connectAgents();
      await agents.stop(agentId);
      console.log(`Asked agent "${agentId}" to stop.`);
    },
  },
};

function need(value: string | undefined, name: string): string {
  if (!value) throw new UserError(`Missing <${name}>.`);
  return value;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

function help(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  return [
    'livecontext — durable LLM agents on Temporal',
    '',
    ...Object.entries(commands).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`),
    '',
    'livecontext <command> --help for its options.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(help());
    return 0;
  }
  const cmd = commands[name];
  if (!cmd) {
    console.error(`livecontext: unknown command "${name}".\n\n${help()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(`${cmd.usage}\n\n${cmd.summary}`);
    return 0;
  }
  try {
    const parsed = parseArgs({ args: rest, options: cmd.options ?? {}, allowPositionals: true, strict: true });
    return (await cmd.run(parsed as never)) ?? 0;
  } catch (err) {
    console.error(`livecontext: ${describeError(err)}`);
    return err instanceof UserError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  }
}

function describeError(err: unknown): string {
  if (err instanceof WorkflowNotFoundError) return `No agent with that id (${err.workflowId}).`;
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof InputRejectedError || (cause as Error | undefined)?.name === 'ApplicationFailure') {
    return (cause as Error).message;
  }
  return err instanceof Error ? err.message : String(err);
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}

export const CLI_ENTRY = path.resolve(__filename);
