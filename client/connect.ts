/** Client connections with errors a user can act on. */
import { Client, Connection } from '@temporalio/client';
import { livecontextDataConverter } from '../common/codec/data-converter';
import { connectSettings, unreachableServer } from '../common/connection';
import { startTracing } from '../common/telemetry';
import { AgentClient } from './agent-client';
import { clientInterceptors } from './closed-channel-guard';
import { UserError } from '../common/user-error';

export { UserError };

export async function connectAgents(options: { address?: string; namespace?: string } = {}) {
  const settings = connectSettings(options);
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...settings.connectionOptions, connectTimeout: '5 seconds', interceptors: clientInterceptors() } as never);
  } catch (err) {
    throw unreachableServer(settings.address, err);
  }
  // With OTEL_* set, every client call opens a span whose context the workflow and its activities continue.
  const tracing = startTracing();
  const client = new Client({
    connection,
    namespace: settings.namespace,
    dataConverter: livecontextDataConverter(),
    ...(tracing ? { interceptors: { workflow: tracing.clientInterceptors() } } : {}),
  });
  return { agents: new AgentClient(client, settings.taskQueue), client, connection, settings };
}

/**
 * The model a new agent gets when none is named: LIVECONTEXT_MODEL; else OpenAI or Anthropic when
 * their key is in the environment; else the offline demo.
 */
export function defaultModel(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LIVECONTEXT_MODEL) return env.LIVECONTEXT_MODEL;
  if (env.OPENAI_API_KEY) return 'openai:gpt-4.1-mini';
  if (env.ANTHROPIC_API_KEY) return 'anthropic:claude-sonnet-4-6';
  return 'demo:offline';
}
