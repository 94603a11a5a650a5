/**
 * `livecontext up` (what `npm start` runs): the dev server unless TEMPORAL_ADDRESS points elsewhere,
 * a worker in this process (logs to .livecontext/worker.log), and a console chat with one agent.
 * When stdin is not a terminal it answers one message per line and exits at end of input; the agent
 * stays alive in Temporal either way.
 *
 * What it starts ends with it: on SIGTERM or SIGHUP, and when the process that started it goes away
 * (`npm start`'s script passes a pipe, see scripts/start.mjs and ownerGone), it stops the gateway, the
 * worker and the dev server it started; if it is killed outright, the dev server stops on its own
 * (worker/dev-server.ts). A server it did not start is named and left running.
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { type DevServer, startDevServer } from '../worker/dev-server';
import { demoReason, devServerLine } from './up-messages';
import { installLogging } from '../common/logging';
import { startWorker } from '../worker/run-worker';
import { DEMO_HELP, OFFLINE_DEMO_MODEL } from '../activities/models/offline-demo-model';
import { runChat } from './chat';
import { terminalText } from './terminal-text';
import { connectAgents } from '../client/connect';
import { loadMcpConfigFile } from '../activities/mcp/config';
import { loadA2aAgentsFile } from '../activities/a2a/config';
import { DEFAULT_PORT, type RunningGateway, serveGateway } from '../gateway/serve-gateway';
import { tokensFromEnv } from '../gateway/tokens';
import type { AgentClient } from '../client/agent-client';
import { CHAT_MODEL_WORDS, modelWarning } from '../client/model-warning';

export async function up(options: { agentId: string; model: string; mcp?: string }): Promise<void> {
  const interactive = !!process.stdin.isTTY;
  const say = (m: string) => (interactive ? console.log(m) : console.error(m));
  installLogging({ file: path.resolve('.livecontext/worker.log') });
  // `./mcp.json`, when present, gives the worker MCP servers (as `livecontext worker --mcp` does).
  const mcpFile = options.mcp ?? (existsSync('mcp.json') ? 'mcp.json' : undefined);
  const mcpServers = mcpFile ? loadMcpConfigFile(path.resolve(mcpFile)) : undefined;
  if (mcpFile) console.error(`MCP servers from ${mcpFile}: ${mcpServers!.map((s) => s.name).join(', ') || '(none)'}`);
  const a2aAgents = mcpFile ? loadA2aAgentsFile(path.resolve(mcpFile)) : [];
  if (a2aAgents.length) console.error(`A2A agents from ${mcpFile}: ${a2aAgents.map((a) => a.name).join(', ')}`);

  // Everything started below is stopped here, once, however this command ends.
  const stops: (() => Promise<unknown>)[] = [];
  let stopping: Promise<void> | undefined;
  const stopAll = () =>
    (stopping ??= (async () => {
      for (const stop of stops.reverse()) await stop().catch((err: unknown) => console.error(`(while stopping: ${(err as Error).message.split('\n')[0]})`));
    })());
  const leave = (why: string, code: number) => {
    console.error(`livecontext up: ${why}; stopping what it started…`);
    setTimeout(() => process.exit(code), 15_000).unref(); // a stop that hangs does not keep the server: exiting closes its pipe
    void stopAll().finally(() => process.exit(code));
  };
  process.once('SIGTERM', () => leave('SIGTERM', 143));
  process.once('SIGHUP', () => leave('SIGHUP', 129));
  ownerGone(() => leave('the command that started it has ended', 1));

  let address = process.env.TEMPORAL_ADDRESS;
  let server: DevServer | undefined;
  if (!address) {
    console.error('starting the Temporal dev server…');
    server = await startDevServer({ owner: 'livecontext up (npm start)', log: (m) => console.error(terminalText(m)) });
    address = server.address;
    stops.push(() => stopServer(server!));
    say(devServerLine(server));
  }
  const worker = await startWorker({
    address,
    progress: (m) => console.error(terminalText(m)),
    ...(mcpServers ? { mcpServers } : {}),
    ...(a2aAgents.length ? { a2aAgents } : {}),
  });
  stops.push(() => worker.stop());
  console.error('worker ready');
  const { agents, connection } = await connectAgents({ address });
  stops.push(() => connection.close());
  const gateway = await startGateway(agents, say);
  if (gateway) stops.push(() => gateway.close());
  try {
    say(await startAgent(agents, options));
    await runChat({ agents, agentId: options.agentId, input: process.stdin, output: process.stdout, interactive });
  } finally {
    await stopAll();
  }
}

async function stopServer(server: DevServer): Promise<void> {
  if (!server.started) {
    console.error(
      `The Temporal server at ${server.address} keeps running (this command did not start it; ports ${server.address.split(':').pop()} and ${server.uiUrl.split(':').pop()} stay taken).`,
    );
    return;
  }
  await server.stop();
}

/**
 * Starts the agent, or finds it already there, and says which model it runs on — its own, not the one
 * this command would have given a new agent — and, when a worker cannot call that model, why.
 */
async function startAgent(agents: AgentClient, options: { agentId: string; model: string }): Promise<string> {
  const { agentId } = options;
  let model = options.model;
  let said: string;
  try {
    // The demo's "both" runs a timer and a file write at once.
    await agents.start(agentId, { model, ...(model === OFFLINE_DEMO_MODEL ? { parallelTools: true } : {}) });
    said = `Started agent "${agentId}" with model ${model}.`;
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    model = (await agents.state(agentId)).config.model;
    said = `Agent "${agentId}" runs on ${model}${model !== options.model ? ` (it already existed, so not on ${options.model}: /model ${options.model} changes it)` : ''}.`;
  }
  if (model === OFFLINE_DEMO_MODEL) {
    const why = options.model === OFFLINE_DEMO_MODEL ? demoReason() : 'The offline demo model is not an LLM.';
    return `${said} ${why} ${DEMO_HELP} See the README to use OpenAI, Anthropic or a local server.`;
  }
  const warning = await modelWarning(agents, agentId, model, await agents.agentTaskQueue(agentId), CHAT_MODEL_WORDS);
  return warning ? `${said} Warning: ${warning}` : said;
}

/**
 * Calls `onGone` when the process that started this one ends, if it passed the read end of a pipe as
 * the file descriptor named by LIVECONTEXT_OWNER_FD (scripts/start.mjs does): the kernel closes the
 * write end when that process exits, `kill -9` included. The variable is not passed on to children.
 */
function ownerGone(onGone: () => void): void {
  const fd = Number(process.env.LIVECONTEXT_OWNER_FD);
  delete process.env.LIVECONTEXT_OWNER_FD;
  if (!Number.isInteger(fd) || fd < 3) return;
  const pipe = new net.Socket({ fd, readable: true, writable: false });
  pipe.on('data', () => {});
  pipe.once('end', onGone);
  pipe.once('error', onGone);
  pipe.unref();
}

/**
 * The HTTP gateway and web chat beside the console chat, on loopback (LIVECONTEXT_GATEWAY_PORT, default
 * 8787; LIVECONTEXT_GATEWAY=0 leaves it out). A port in use is said, not fatal: the chat still runs.
 */
async function startGateway(agents: AgentClient, say: (m: string) => void): Promise<RunningGateway | undefined> {
  if (process.env.LIVECONTEXT_GATEWAY === '0') return undefined;
  const port = Number(process.env.LIVECONTEXT_GATEWAY_PORT ?? DEFAULT_PORT);
  try {
    const gateway = await serveGateway({ agents, tokens: tokensFromEnv(), port, host: '127.0.0.1' });
    say(`Web chat and HTTP API: ${gateway.url}`);
    return gateway;
  } catch (err) {
    console.error(`(no HTTP gateway: ${(err as Error).message.split('\n')[0]})`);
    return undefined;
  }
}
