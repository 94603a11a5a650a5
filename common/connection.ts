/**
 * Connection settings through Temporal's standard environment configuration: TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS settings and TOML profiles (TEMPORAL_PROFILE,
 * TEMPORAL_CONFIG_FILE), exactly as the Temporal CLI and other SDKs read them; and the task queue of
 * livecontext's agents (LIVECONTEXT_TASK_QUEUE), shared by workers and clients.
 */
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { TASK_QUEUE } from '../workflows/messages';
import { UserError } from './user-error';

export interface ConnectSettings {
  address: string;
  namespace: string;
  /** The task queue agents run on: LIVECONTEXT_TASK_QUEUE, else `livecontext-agents`. */
  taskQueue: string;
  /** Pass to Connection.connect / NativeConnection.connect. */
  connectionOptions: ReturnType<typeof loadClientConnectConfig>['connectionOptions'];
}

export const DEFAULT_ADDRESS = 'localhost:7233';

export function connectSettings(overrides: { address?: string; namespace?: string; taskQueue?: string } = {}): ConnectSettings {
  const loaded = loadClientConnectConfig();
  const address = overrides.address ?? loaded.connectionOptions.address ?? DEFAULT_ADDRESS;
  return {
    address,
    namespace: overrides.namespace ?? loaded.namespace ?? 'default',
    taskQueue: overrides.taskQueue ?? (process.env.LIVECONTEXT_TASK_QUEUE || TASK_QUEUE),
    connectionOptions: { ...loaded.connectionOptions, address },
  };
}

/** What the CLI, the worker and clients say when no Temporal server answers at `address`. */
export function unreachableServer(address: string, err: unknown): UserError {
  return new UserError(
    `Cannot reach a Temporal server at ${address} (${(err as Error).message.split('\n')[0]}). ` +
      'Start one with `livecontext dev` (or `npm start`), or set TEMPORAL_ADDRESS to your cluster.',
  );
}
