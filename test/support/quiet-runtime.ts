/** Tests log Temporal's runtime and workflow messages at WARN and above, so failures stay readable. */
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  // No shutdown on signals: a signal meant for a child process must not shut down the runtime that later
  // test files in this jest worker use ("Channel has been shut down").
  Runtime.install({ logger: new DefaultLogger(process.env.LIVECONTEXT_TEST_LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN'), shutdownSignals: [] });
} catch {
  // already installed in this process
}
