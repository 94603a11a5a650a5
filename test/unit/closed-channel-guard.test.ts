/**
 * A call that Temporal's client retries from a timer, when the connection is closed before the timer
 * fires: without the guard the retry throws "Channel has been shut down" in that timer (an uncaught
 * exception, which fails this test); with it the call fails with CANCELLED, to its caller.
 */
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { clientInterceptors } from '../../client/closed-channel-guard';

/** A loopback port nothing listens on: calls to it fail UNAVAILABLE, which the client retries. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('a retry due after the connection closed ends the call with CANCELLED instead of an uncaught exception', async () => {
  const connection = await Connection.lazy({ address: `127.0.0.1:${await closedPort()}`, interceptors: clientInterceptors() });
  const call = connection.workflowService.getSystemInfo({});
  // Let the first attempt fail (connection refused) and its retry be scheduled, then close.
  await new Promise((resolve) => setTimeout(resolve, 30));
  await connection.close();
  await expect(call).rejects.toThrow(/CANCELLED: the connection was closed before this call was made or retried/);
  // The retry's timer has fired by now (Temporal's first delay is about 100 ms): nothing else was thrown.
  await new Promise((resolve) => setTimeout(resolve, 300));
});

test('a call made after the connection closed fails with CANCELLED, to its caller', async () => {
  const connection = await Connection.lazy({ address: `127.0.0.1:${await closedPort()}`, interceptors: clientInterceptors() });
  await connection.close();
  await expect(connection.workflowService.getSystemInfo({})).rejects.toThrow(/CANCELLED: the connection was closed before this call was made or retried/);
  await new Promise((resolve) => setTimeout(resolve, 100)); // anything thrown outside the call would fail the test by now
});
