/**
 * Connection settings through Temporal's standard environment configuration: TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS settings and TOML profiles (TEMPORAL_PROFILE,
 * TEMPORAL_CONFIG_FILE), exactly as the Temporal CLI and other SDKs read them.
 */
import { loadClientConnectConfig } from '@temporalio/envconfig';

export interface ConnectSettings {
  address: string;
  namespace: string;
  /** Pass to Connection.connect / NativeConnection.connect. */
  connectionOptions: ReturnType<typeof loadClientConnectConfig>['connectionOptions'];
}

export const DEFAULT_ADDRESS = 'localhost:7233';

export function connectSettings(overrides: { address?: string; namespace?: string } = {}): ConnectSettings {
  const loaded = loadClientConnectConfig();
  const address = overrides.address ?? loaded.connectionOptions.address ?? DEFAULT_ADDRESS;
  return {
    address,
    namespace: overrides.namespace ?? loaded.namespace ?? 'default',
    connectionOptions: { ...loaded.connectionOptions, address },
  };
}
