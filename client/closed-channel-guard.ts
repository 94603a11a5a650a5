/**
 * Temporal's client retries a failed gRPC call from a timer (its retry interceptor). A retry whose timer
 * fires after the connection was closed throws "Channel has been shut down" inside that timer, where no
 * caller can catch it, and the process dies of an uncaught exception: a CLI command that closes while a
 * background call backs off, a gateway or test shutting down mid-retry. Placed after the retry
 * interceptor, this guard ends such a retry (and a call made after the close) as a CANCELLED call,
 * which reaches the caller as its error.
 */
import { type Interceptor, InterceptingCall, Metadata, status } from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

export const closedChannelGuard: Interceptor = (options, nextCall) => {
  try {
    return new InterceptingCall(nextCall(options));
  } catch (err) {
    if (!/Channel has been shut down/.test((err as Error)?.message ?? '')) throw err;
    return new InterceptingCall(endedCall('the connection was closed before this call was made or retried'));
  }
};

/** Temporal's default interceptors (retries) with the guard after them: pass as ConnectionOptions.interceptors. */
export function clientInterceptors(): Interceptor[] {
  return [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), closedChannelGuard];
}

/**
 * A call that never reaches the network: started, it reports no message and then CANCELLED to its
 * listener, as grpc-js's unary calls always report a (null) message before their status — Temporal's
 * retry interceptor relies on that.
 */
function endedCall(details: string): ConstructorParameters<typeof InterceptingCall>[0] {
  const call = {
    start(
      _metadata: Metadata,
      listener?: { onReceiveMessage?: (message: unknown) => void; onReceiveStatus?: (s: { code: number; details: string; metadata: Metadata }) => void },
    ) {
      queueMicrotask(() => {
        listener?.onReceiveMessage?.(null);
        listener?.onReceiveStatus?.({ code: status.CANCELLED, details, metadata: new Metadata() });
      });
    },
    cancelWithStatus() {},
    getPeer: () => '',
    sendMessageWithContext() {},
    sendMessage() {},
    startRead() {},
    halfClose() {},
    getAuthContext: () => null,
  };
  return call;
}
