/** Tests log Temporal's runtime and workflow messages at WARN and above, so failures stay readable. */
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger(process.env.LIVECONTEXT_TEST_LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN') });
} catch {
  // already installed in this process
}
