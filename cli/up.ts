/**
 * `livecontext up` (what `npm start` runs): the dev server unless TEMPORAL_ADDRESS points elsewhere,
 * a worker in this process (logs to .livecontext/worker.log), and a console chat with one agent.
 * When stdin is not a terminal it answers one message per line and exits at end of input; the agent
 * stays alive in Temporal either way.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { startDevServer } from '../worker/dev-server';
import { installLogging } from '../common/logging';
import { startWorker } from '../worker/run-worker';
import { DEMO_HELP } from '../activities/models/offline-demo-model';
import { runChat } from './chat';
import { terminalText } from './terminal-text';
import { connectAgents } from '../client/connect';
import { loadMcpConfigFile } from '../activities/mcp/config';
import { DEFAULT_PORT, type RunningGateway, serveGateway } from '../gateway/serve-gateway';
import { tokensFromEnv } from '../gateway/tokens';
import type { AgentClient } from '../client/agent-client';

export async function up(options: { agentId: string; model: string; mcp?: string }): Promise<void> {
  const interactive = !!process.stdin.isTTY;
  const say = (m: string) => (interactive ? console.log(m) : console.error(m));
  installLogging({ file: path.resolve('.livecontext/worker.log') });
  // `./mcp.json`, when present, gives the worker MCP servers (as `livecontext worker --mcp` does).
  const mcpFile = options.mcp ?? (existsSync('mcp.json') ? 'mcp.json' : undefined);
  const mcpServers = mcpFile ? loadMcpConfigFile(path.resolve(mcpFile)) : undefined;
  if (mcpFile) console.error(`MCP servers from ${mcpFile}: ${mcpServers!.map((s) => s.name).join(', ') || '(none)'}`);

  let address = process.env.TEMPORAL_ADDRESS;
  let stopServer = async () => {};
  if (!address) {
    console.error('starting the Temporal dev server…');
    const server = await startDevServer({ log: (m) => console.error(terminalText(m)) });
    address = server.address;
    stopServer = server.stop;
    say(`Temporal dev server ${server.address}${server.started ? '' : ' (already running)'} · Web UI ${server.uiUrl}`);
  }
  const worker = await startWorker({ address, progress: (m) => console.error(terminalText(m)), ...(mcpServers ? { mcpServers } : {}) });
  console.error('worker ready');
  const { agents, connection } = await connectAgents({ address });
  const gateway = await startGateway(agents, say);
  try {
    try {
      // The demo's "both" runs a timer and a file write at once.
      await agents.start(options.agentId, { model: options.model, ...(options.model === 'demo:offline' ? { parallelTools: true } : {}) });
      say(`Started agent "${options.agentId}" with model ${options.model}.`);
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    if (options.model === 'demo:offline') {
      say(`No API key configured: using the offline demo model (not an LLM). ${DEMO_HELP} See the README to use OpenAI or Anthropic.`);
    }
    await runChat({ agents, agentId: options.agentId, input: process.stdin, output: process.stdout, interactive });
  } finally {
    await gateway?.close();
    await connection.close();
    await worker.stop();
    await stopServer();
  }
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
