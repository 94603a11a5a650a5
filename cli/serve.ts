/** `livecontext serve`: the HTTP gateway in the foreground, until Ctrl-C. */
import { connectAgents } from '../client/connect';
import { activeTracing } from '../common/telemetry';
import { UserError } from '../common/user-error';
import { DEFAULT_PORT, serveGateway } from '../gateway/serve-gateway';
import { tokensFromEnv } from '../gateway/tokens';
import type { Values } from './argv';

export async function serveCmd(v: Values): Promise<void> {
  const port = v.port === undefined ? Number(process.env.LIVECONTEXT_GATEWAY_PORT ?? DEFAULT_PORT) : Number(v.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserError(`--port must be a port number (0-65535), not "${v.port}".`);
  const tokens = tokensFromEnv();
  const corsOrigins =
    (v['cors-origin'] as string[] | undefined) ??
    process.env.LIVECONTEXT_GATEWAY_CORS_ORIGINS?.split(',')
      .map((o) => o.trim())
      .filter(Boolean) ??
    [];
  const { agents, connection, settings } = await connectAgents();
  const gateway = await serveGateway({
    agents,
    tokens,
    corsOrigins,
    port,
    host: (v.host as string | undefined) ?? process.env.LIVECONTEXT_GATEWAY_HOST,
    a2aDefaultAgent: process.env.LIVECONTEXT_A2A_AGENT?.trim() || undefined,
  });
  console.log(
    `Gateway on ${gateway.url} (Temporal ${settings.address}, namespace ${settings.namespace}; ${tokens.length ? `${tokens.length} token(s)` : 'no token: loopback only'}). Ctrl-C to stop.`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await gateway.close();
  await activeTracing()
    ?.shutdown()
    .catch(() => undefined); // started by connectAgents when OTEL_* is set: flush the last spans
  await connection.close();
}
