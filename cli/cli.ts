/**
 * The `livecontext` command line. Every command has --help; data commands have --json; errors a user
 * will meet print one line and exit non-zero (2 for usage errors, 1 otherwise), never a stack trace.
 */
import { ArgvError, type Options, type Values, parseCommandArgs } from './argv';
import { exitQuietlyWhenReaderLeaves, exitWhenFlushed } from './exit';
import { UserError } from '../common/user-error';
import { terminalText } from './terminal-text';

// Everything heavy (Temporal's client and worker, the SDKs) is loaded by the command that needs it, so
// `--help` and a mistyped command answer at once.
const commandsModule = () => import('./commands');
// `list` and `state --json` answer through quick reads when they can (quick-commands.ts).
const quickCommands = () => import('./quick-commands');

interface Command {
  usage: string;
  summary: string;
  options?: Options;
  /** The index of the positional where free text starts: the text is every positional from there. */
  textAt?: number;
  /** How many positionals it takes (without free text); a word more is refused. */
  args: number;
  /** Its first positional names an existing agent (errors then say if that agent is no longer running). */
  agent?: true;
  run(positionals: string[], values: Values): Promise<number | void>;
}

const json = { json: { type: 'boolean' } } as const;
function need(value: string | undefined, name: string): string {
  if (!value) throw new UserError(`Missing <${name}>.`);
  return value;
}

const commands: Record<string, Command> = {
  up: {
    usage: 'livecontext up [agent-id] [--model provider:model] [--mcp mcp.json]',
    args: 1,
    summary:
      'Dev server (unless TEMPORAL_ADDRESS is set), a worker (with the MCP servers of ./mcp.json when present), and a chat with an agent (what `npm start` runs).',
    options: { model: { type: 'string' }, mcp: { type: 'string' } },
    async run(p, v) {
      const [{ up }, { checkModel }, { defaultModel }] = await Promise.all([import('./up'), commandsModule(), import('../client/connect')]);
      await up({
        agentId: p[0] ?? process.env.LIVECONTEXT_AGENT_ID ?? 'demo',
        model: checkModel((v.model as string) ?? defaultModel()),
        ...(v.mcp ? { mcp: v.mcp as string } : {}),
      });
    },
  },
  dev: {
    usage: 'livecontext dev [--namespace NAME]',
    args: 0,
    summary:
      'The local dev server (SQLite under .livecontext/, Web UI) and a worker, in the foreground; --namespace also creates NAME and runs the worker there.',
    options: { namespace: { type: 'string' } },
    async run(_p, v) {
      const [{ startDevServer }, { startWorker }] = await Promise.all([import('../worker/dev-server'), import('../worker/run-worker')]);
      const server = await startDevServer({
        owner: 'livecontext dev',
        log: (m) => console.error(terminalText(m)),
        ...(v.namespace ? { namespaces: [v.namespace as string] } : {}),
      });
      console.log(
        `Temporal server: ${server.address} ${server.started ? '(started here; it stops when this exits)' : `(already running, ${server.reusedFrom}; it keeps running when this exits)`}`,
      );
      console.log(`Web UI:          ${server.uiUrl}`);
      if (v.namespace) console.log(`Namespace:       ${v.namespace} (and default)`);
      const worker = await startWorker({
        address: server.address,
        ...(v.namespace ? { namespace: v.namespace as string } : {}),
        progress: (m) => console.error(terminalText(m)),
      });
      console.log(`Worker running on namespace ${worker.settings.namespace}, task queue ${worker.settings.taskQueue}. Ctrl-C to stop.`);
      await Promise.race([untilSignal(), worker.done]);
      await worker.stop();
      await server.stop();
      if (!server.started) console.error(`The Temporal server at ${server.address} keeps running (this command did not start it).`);
    },
  },
  worker: {
    usage: 'livecontext worker [--tools ./my-tools.js] [--mcp mcp.json] [--workspace DIR]',
    args: 0,
    summary:
      'A worker for TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (Temporal environment configuration); --mcp adds the tools of the MCP servers in an `mcpServers` JSON file (and of the remote A2A agents in its `a2aAgents`).',
    options: { tools: { type: 'string' }, mcp: { type: 'string' }, workspace: { type: 'string' } },
    async run(_p, v) {
      const [{ loadToolsModule }, { startWorker }, { loadMcpConfigFile }, { loadA2aAgentsFile }] = await Promise.all([
        import('../worker/tools-module'),
        import('../worker/run-worker'),
        import('../activities/mcp/config'),
        import('../activities/a2a/config'),
      ]);
      const tools = v.tools ? await loadToolsModule(v.tools as string) : undefined;
      const mcpServers = v.mcp ? loadMcpConfigFile(v.mcp as string) : undefined;
      // The same file's `a2aAgents`: remote A2A agents as tools (docs/a2a.md).
      const a2aAgents = v.mcp ? loadA2aAgentsFile(v.mcp as string) : undefined;
      const worker = await startWorker({
        tools,
        mcpServers,
        ...(a2aAgents?.length ? { a2aAgents } : {}),
        workspaceRoot: v.workspace as string | undefined,
        progress: (m) => console.error(terminalText(m)),
      });
      console.log(
        `Worker running on ${worker.settings.address}, namespace ${worker.settings.namespace}, task queue ${worker.settings.taskQueue}. Ctrl-C to stop.`,
      );
      await Promise.race([untilSignal(), worker.done]);
      await worker.stop();
    },
  },
  mcp: {
    usage: 'livecontext mcp list [--mcp mcp.json] [--json]',
    args: 1,
    summary: 'The MCP servers of a configuration file (default ./mcp.json): whether each connects from here, and their tools as agents see them.',
    options: { mcp: { type: 'string' }, ...json },
    async run(p, v) {
      if (p[0] !== 'list') throw new UserError(`Unknown mcp subcommand "${p[0] ?? ''}". Usage: livecontext mcp list [--mcp mcp.json] [--json]`);
      return (await import('./mcp-list')).mcpListCmd(v.mcp as string | undefined, !!v.json);
    },
  },
  start: {
    usage:
      'livecontext start <agent-id> [--model provider:model] [--fallback-models a,b] [--system TEXT] [--tools a,b,prefix_*] [--budget name=N]… [--context-policy compact|trim] [--compaction-model provider:model] [--compact-at 0.5-0.95] [--cache-ttl 5m|1h] [--model-calls activity|local]',
    args: 1,
    summary:
      'Starts a new agent (--fallback-models: models tried in order when a model call fails after its retries; --budget e.g. turnModelCalls=100, dayCostUsd=5; ' +
      '--context-policy: when the context window fills, compact (summarise the oldest turns, the default) or trim (leave them out); --compact-at: the share of the window at which it compacts, default 0.8; --cache-ttl: Anthropic prompt cache lifetime; --model-calls local: model calls as local activities, about half the latency of a turn but no streamed partial output).',
    options: {
      model: { type: 'string' },
      'fallback-models': { type: 'string' },
      system: { type: 'string' },
      tools: { type: 'string' },
      budget: { type: 'string', multiple: true },
      'context-policy': { type: 'string' },
      'compaction-model': { type: 'string' },
      'compact-at': { type: 'string' },
      'cache-ttl': { type: 'string' },
      'model-calls': { type: 'string' },
    },
    run: async (p, v) => (await commandsModule()).startCmd(need(p[0], 'agent-id'), v),
  },
  send: {
    usage: 'livecontext send <agent-id> [--image FILE]… [--idempotency-key KEY] [--schema FILE] <text… | -> [--wait] [--timeout SECONDS] [--json]',
    args: 1,
    summary:
      'Sends input (`-` reads it from stdin), with --image a PNG, JPEG, GIF or WebP file (repeatable); with --wait, prints the answer. --schema: a JSON Schema file the answer must match (a typed answer; --wait prints its JSON). ' +
      'When the turn needs a person (a tool call waits for approval, or the agent asks a question) --wait says so on stderr, with the command that answers, and exits with status 3; --timeout: gives up after SECONDS, exit status 124. ' +
      'Options go before or after the text, not among its words; text with words that start with - goes after `--`.',
    options: {
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
      image: { type: 'string', multiple: true },
      'idempotency-key': { type: 'string' },
      schema: { type: 'string' },
      ...json,
    },
    textAt: 1,
    agent: true,
    run: async (p, v) => {
      const text = p[1] === '-' && p.length === 2 ? (await readStdin()).replace(/\r?\n$/, '') : p.slice(1).join(' ');
      return (await commandsModule()).sendCmd(need(p[0], 'agent-id'), need(text || undefined, 'text'), v);
    },
  },
  chat: {
    usage: 'livecontext chat <agent-id>',
    args: 1,
    summary: 'Chats with a running agent, output streamed as it forms; /help inside; /quit leaves it running.',
    agent: true,
    run: async (p) => (await commandsModule()).chatCmd(need(p[0], 'agent-id')),
  },
  state: {
    usage: 'livecontext state <agent-id> [--json]',
    args: 1,
    summary: 'Run state, configuration, pending and waiting tool calls, last error, usage.',
    options: json,
    agent: true,
    run: async (p, v) => {
      if (!(await (await quickCommands()).quickStateCmd(need(p[0], 'agent-id'), v))) await (await commandsModule()).stateCmd(p[0], v);
    },
  },
  history: {
    usage: 'livecontext history <agent-id> [--after SEQ] [--limit N] [--all] [--json]',
    args: 1,
    summary:
      'The history entries, archived ones included, printed page by page as they are read; --after SEQ starts after entry SEQ, --limit N prints at most N entries; --all also prints the entries a rewind took out, marked (rewound).',
    options: { ...json, after: { type: 'string' }, limit: { type: 'string' }, all: { type: 'boolean' } },
    agent: true,
    run: async (p, v) => (await commandsModule()).historyCmd(need(p[0], 'agent-id'), v),
  },
  inspect: {
    usage: 'livecontext inspect <agent-id> --call SEQ [--short] [--json]',
    args: 1,
    summary:
      'The request model call SEQ (its model_output entry) sent, rendered again from history by a worker and checked against the fingerprint the call recorded; --short cuts long texts.',
    options: { ...json, call: { type: 'string' }, short: { type: 'boolean' } },
    agent: true,
    run: async (p, v) => (await import('./inspect-cmd')).inspectCmd(need(p[0], 'agent-id'), v),
  },
  list: {
    usage: 'livecontext list [--all] [--json]',
    args: 0,
    summary: 'Agents in the namespace (running ones; --all for every one), with run state and model.',
    options: { all: { type: 'boolean' }, ...json },
    run: async (_p, v) => {
      if (!(await (await quickCommands()).quickListCmd(v))) await (await commandsModule()).listCmd(v);
    },
  },
  configure: {
    usage:
      'livecontext configure <agent-id> [--model provider:model] [--fallback-models a,b] [--system TEXT] [--budget name=N]… [--context-policy compact|trim] [--compaction-model provider:model] [--compact-at 0.5-0.95] [--cache-ttl 5m|1h] [--model-calls activity|local] [--json]',
    args: 1,
    summary:
      "Changes the model, the fallback models (`--fallback-models ''` removes them), the budgets (replaced as a whole), the context policy (the options given; `--compaction-model ''` and `--cache-ttl ''` remove theirs), how model calls run (from the next call) and/or the system instruction.",
    options: {
      model: { type: 'string' },
      'fallback-models': { type: 'string' },
      system: { type: 'string' },
      budget: { type: 'string', multiple: true },
      'context-policy': { type: 'string' },
      'compaction-model': { type: 'string' },
      'compact-at': { type: 'string' },
      'cache-ttl': { type: 'string' },
      'model-calls': { type: 'string' },
      ...json,
    },
    agent: true,
    run: async (p, v) => (await commandsModule()).configureCmd(need(p[0], 'agent-id'), v),
  },
  notebook: {
    usage: 'livecontext notebook <agent-id> [--set TEXT | --append TEXT] [--json]',
    args: 1,
    summary: "Shows the agent's memory notebook; --set replaces it, --append adds to it (recorded in its history, seen at its next model call).",
    options: { set: { type: 'string' }, append: { type: 'string' }, ...json },
    agent: true,
    run: async (p, v) => (await commandsModule()).notebookCmd(need(p[0], 'agent-id'), v),
  },
  approve: {
    usage: 'livecontext approve <agent-id> <tool-call-id>',
    args: 2,
    summary: 'Approves a tool call that waits for approval.',
    agent: true,
    run: async (p, v) => (await commandsModule()).decideCmd(need(p[0], 'agent-id'), need(p[1], 'tool-call-id'), true, v),
  },
  deny: {
    usage: 'livecontext deny <agent-id> <tool-call-id> [--reason TEXT]',
    args: 2,
    summary: 'Denies a tool call; the model sees a Skipped result with the reason.',
    options: { reason: { type: 'string' } },
    agent: true,
    run: async (p, v) => (await commandsModule()).decideCmd(need(p[0], 'agent-id'), need(p[1], 'tool-call-id'), false, v),
  },
  resolve: {
    usage: 'livecontext resolve <agent-id> <tool-call-id> (--done TEXT | --failed TEXT | --retry)',
    args: 2,
    summary:
      'Resolves a tool call whose outcome is unknown (its worker died mid-run): --done records it succeeded with TEXT, --failed records it failed, --retry runs it again.',
    options: { done: { type: 'string' }, failed: { type: 'string' }, retry: { type: 'boolean' } },
    agent: true,
    run: async (p, v) => (await commandsModule()).resolveCmd(need(p[0], 'agent-id'), need(p[1], 'tool-call-id'), v),
  },
  answer: {
    usage:
      'livecontext answer <agent-id> [<wait-id> (--approve [--remember] | --deny [--reason TEXT] | --text TEXT | --done TEXT | --failed TEXT | --retry | --accept JSON | --decline | --cancel)] [--json]',
    args: 2,
    summary:
      "Answers one of the agent's waits (an approval, its question, an unknown outcome, an MCP server's question: --accept '{\"field\": ...}', --decline or --cancel); without a wait id lists them. The first answer wins, through any door: a later one is refused, naming it.",
    options: {
      approve: { type: 'boolean' },
      deny: { type: 'boolean' },
      remember: { type: 'boolean' },
      reason: { type: 'string' },
      text: { type: 'string' },
      done: { type: 'string' },
      failed: { type: 'string' },
      retry: { type: 'boolean' },
      accept: { type: 'string' },
      decline: { type: 'boolean' },
      cancel: { type: 'boolean' },
      ...json,
    },
    agent: true,
    run: async (p, v) => (await import('./wait-commands')).answerCmd(need(p[0], 'agent-id'), p[1], v),
  },
  policy: {
    usage: 'livecontext policy <agent-id> [--rule "allow|ask|deny TOOL [ARG~WORD | ARG*=TEXT | ARG=VALUE]…"]… [--clear] [--json]',
    args: 1,
    summary:
      "Shows the agent's tool rules (approval policy: the first rule matching a call allows, asks or denies it); --rule, repeated in order, replaces them; --clear removes them. Recorded in its history.",
    options: { rule: { type: 'string', multiple: true }, clear: { type: 'boolean' }, ...json },
    agent: true,
    run: async (p, v) => (await import('./wait-commands')).policyCmd(need(p[0], 'agent-id'), v),
  },
  export: {
    usage: 'livecontext export <agent-id> [--out FILE]',
    args: 1,
    summary: 'Writes the agent as a versioned JSON snapshot (no secrets), in any state.',
    options: { out: { type: 'string' } },
    agent: true,
    run: async (p, v) => (await commandsModule()).exportCmd(need(p[0], 'agent-id'), v),
  },
  import: {
    usage: 'livecontext import <FILE> [--id NEW-ID]',
    args: 1,
    summary: 'Starts an agent from a snapshot (on this cluster/namespace); it continues where it was.',
    options: { id: { type: 'string' } },
    run: async (p, v) => (await commandsModule()).importCmd(need(p[0], 'FILE'), v),
  },
  fork: {
    usage: 'livecontext fork <agent-id> --at SEQ --as NEW-ID [--model provider:model] [--system TEXT] [--tools a,b] [--json]',
    args: 1,
    summary:
      "A new agent whose history is this one's up to entry SEQ (a turn's end, or an input whose turn it runs again), its widgets as they were there, an empty workspace; the source is untouched and lists its forks in `state`.",
    options: { at: { type: 'string' }, as: { type: 'string' }, model: { type: 'string' }, system: { type: 'string' }, tools: { type: 'string' }, ...json },
    agent: true,
    run: async (p, v) => (await commandsModule()).forkCmd(need(p[0], 'agent-id'), v),
  },
  compare: {
    usage: 'livecontext compare <agent-id> --at SEQ --models a,b[,c] [--prefix NAME] [--system TEXT] [--tools a,b] [--json]',
    args: 1,
    summary:
      'What-if: forks the agent at input SEQ once per model (named NAME.provider-model, NAME default AGENT.SEQ), runs the turn on each and prints the answers side by side with usage, cost and duration; the forks remain as agents.',
    options: { at: { type: 'string' }, models: { type: 'string' }, prefix: { type: 'string' }, system: { type: 'string' }, tools: { type: 'string' }, ...json },
    agent: true,
    run: async (p, v) => (await commandsModule()).compareCmd(need(p[0], 'agent-id'), v),
  },
  serve: {
    usage: 'livecontext serve [--port 8787] [--host 127.0.0.1] [--cors-origin ORIGIN]…',
    args: 0,
    summary:
      'The HTTP gateway: REST (/openapi.json), AG-UI streams, per-agent event streams, the web chat at / and agents as an MCP server at /mcp. Tokens: LIVECONTEXT_GATEWAY_TOKEN (full), LIVECONTEXT_GATEWAY_READ_TOKEN (read-only).',
    options: { port: { type: 'string' }, host: { type: 'string' }, 'cors-origin': { type: 'string', multiple: true } },
    run: async (_p, v) => (await import('./serve')).serveCmd(v),
  },
  schedule: {
    usage:
      'livecontext schedule add <agent-id> (--cron EXPR | --every 1h) --text TEXT [--start-model provider:model] | list [agent-id] [--json] | describe|pause|resume|trigger|delete <schedule-id>',
    args: 2,
    summary:
      'Input at set times, on Temporal Schedules (they survive every process; Web UI: Schedules). An agent that is not running is refused unless --start-model lets the schedule start it; list and describe say how the last delivery went.',
    options: { cron: { type: 'string' }, every: { type: 'string' }, text: { type: 'string' }, 'start-model': { type: 'string' }, ...json },
    run: async (p, v) => (await import('./schedule-cmd')).scheduleCmd(p, v),
  },
  'codec-server': {
    usage: 'livecontext codec-server [--port 8888] [--ui-origin http://localhost:8233]',
    args: 0,
    summary: 'Decodes encrypted/offloaded payloads for the Temporal Web UI (its "codec endpoint").',
    options: { port: { type: 'string' }, 'ui-origin': { type: 'string' } },
    async run(_p, v) {
      const [{ startCodecServer }, { payloadCodecs }] = await Promise.all([import('../common/codec/codec-server'), import('../common/codec/data-converter')]);
      const server = await startCodecServer({ codecs: payloadCodecs(), port: Number(v.port ?? 8888), allowOrigin: v['ui-origin'] as string | undefined });
      const address = server.address() as { port: number };
      console.log(`Codec server on http://127.0.0.1:${address.port} (set it as the Web UI's codec endpoint). Ctrl-C to stop.`);
      await untilSignal();
      server.close();
    },
  },
  retry: {
    usage: 'livecontext retry <agent-id>',
    args: 1,
    summary: 'Tries again the failed model call the agent is blocked on (says so when there is none).',
    agent: true,
    run: async (p) => (await commandsModule()).retryCmd(need(p[0], 'agent-id')),
  },
  interrupt: {
    usage: 'livecontext interrupt <agent-id>',
    args: 1,
    summary: 'Ends the running turn without an answer: its model call or tools are cancelled, and the agent waits for new input.',
    agent: true,
    run: async (p) => (await commandsModule()).interruptCmd(need(p[0], 'agent-id')),
  },
  rewind: {
    usage: 'livecontext rewind <agent-id> --to SEQ [--reason TEXT] [--json]',
    args: 1,
    summary:
      'Takes the agent back to entry SEQ (a turn end, or an input whose turn then runs again), as if what followed had not happened: history keeps it (history --all), the model, widgets and budgets no longer see it; queued input is kept. At rest only (interrupt a working agent first).',
    options: { ...json, to: { type: 'string' }, reason: { type: 'string' } },
    agent: true,
    run: async (p, v) => (await import('./rewind-cmd')).rewindCmd(need(p[0], 'agent-id'), v),
  },
  stop: {
    usage: 'livecontext stop <agent-id>',
    args: 1,
    summary: 'Ends an agent after its current step.',
    agent: true,
    run: async (p) => (await commandsModule()).simpleCmd(need(p[0], 'agent-id'), 'stop'),
  },
};

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    process.once('SIGHUP', () => resolve()); // a closed terminal: stop what was started, as Ctrl-C does
  });
}

function help(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  return [
    'livecontext — durable LLM agents on Temporal',
    '',
    ...Object.entries(commands).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`),
    '',
    'livecontext <command> --help for its options. Options may come before or after the other words; `--` ends them (every word after it is taken as it is).',
    'Connection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE (Temporal env config).',
  ].join('\n');
}

/** How `livecontext <name> <args…>` reads its words (what main does before running the command). */
export function commandArgs(name: string, args: string[]) {
  const command = commands[name];
  if (!command) throw new Error(`No command "${name}".`);
  return parseCommandArgs(args, { options: command.options, textAt: command.textAt, maxPositionals: command.args });
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(help());
    return 0;
  }
  const command = commands[name];
  if (!command) {
    console.error(terminalText(`livecontext: unknown command "${name}". Run livecontext --help.`));
    return 2;
  }
  let agentId: string | undefined;
  try {
    const parsed = commandArgs(name, rest);
    if (parsed.help) {
      console.log(`${command.usage}\n\n${command.summary}`);
      return 0;
    }
    agentId = command.agent ? parsed.positionals[0] : undefined;
    return (await command.run(parsed.positionals, parsed.values)) ?? 0;
  } catch (err) {
    if (isParseError(err)) {
      const what = err instanceof ArgvError ? err.message : (err as Error).message.split('. ')[0].replace(/\.$/, ''); // parseArgs's first sentence says it
      console.error(terminalText(`livecontext: ${what}. Usage: ${command.usage}`));
      return 2;
    }
    // An agent that is no longer running is the likely reason anything failed: say so.
    const notRunning = agentId && !(err instanceof UserError) ? await (await commandsModule()).notRunningReason(agentId).catch(() => undefined) : undefined;
    printError(notRunning ?? err);
    return err instanceof UserError ? 2 : 1;
  }
}

/** Runs the CLI as a process: exit status from `main`, after every byte of output reached its reader. */
export function run(argv: string[]): void {
  exitQuietlyWhenReaderLeaves();
  const crash = (err: unknown) => {
    printError(err);
    exitWhenFlushed(1);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  main(argv).then(exitWhenFlushed, crash);
}

/** One line on stderr; the whole stack with LIVECONTEXT_DEBUG=1. */
function printError(err: unknown): void {
  console.error(terminalText(`livecontext: ${typeof err === 'string' ? err : describeError(err)}`));
  if (process.env.LIVECONTEXT_DEBUG && err instanceof Error && err.stack) console.error(terminalText(err.stack));
}

function isParseError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/** One line a user can act on. */
export function describeError(err: unknown): string {
  // Loaded already by whatever failed; required here so that `--help` never loads it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { WorkflowNotFoundError, WorkflowUpdateFailedError } = require('@temporalio/client') as typeof import('@temporalio/client');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { grpcDetails } = require('../client/retry') as typeof import('../client/retry');
  if (err instanceof WorkflowNotFoundError) return `No agent "${err.workflowId}" in this namespace.`;
  if ((err as Error)?.name === 'ScheduleNotFoundError') return `No such schedule (livecontext schedule list shows them).`;
  if (err instanceof WorkflowUpdateFailedError && err.cause) return firstLine((err.cause as Error).message);
  const e = err as { message?: string; cause?: { message?: string } };
  if (e?.message?.includes('no poller seen') || e?.cause?.message?.includes('no poller seen')) {
    return 'No worker is running for this task queue. Start one with `livecontext worker` (or `livecontext dev`).';
  }
  const message = typeof e?.message === 'string' ? e.message : String(err);
  // Temporal's client wraps the server's words ("Failed to query Workflow") around the reason.
  const details = grpcDetails(err);
  return firstLine(details && !message.includes(details) ? `${message}: ${details}` : message);
}

const firstLine = (text: string) => text.split('\n')[0];

if (require.main === module) run(process.argv.slice(2));
