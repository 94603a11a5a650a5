/**
 * What a worker needs for Temporal's OpenTelemetry interceptors: the activity interceptors (a span per
 * activity, child of the workflow's schedule span), the client interceptors of the activities' client
 * (the entries query), the workflow interceptor module that must be in the workflow bundle, and the
 * sink through which workflow spans leave the sandbox. The sink is not called during replay, so a
 * replayed workflow exports no span twice.
 */
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from '../../common/telemetry';

/** The workflow interceptor module to bundle with the agent workflows when tracing is on. */
export const TRACING_WORKFLOW_MODULE = require.resolve('../../workflows/tracing-interceptors');

/** Worker options that add tracing to `base` (its own interceptors and sinks are kept). */
export function withTracing(base: Partial<WorkerOptions>, tracing: Tracing): Partial<WorkerOptions> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const otel = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const interceptors = base.interceptors ?? {};
  return {
    ...base,
    interceptors: {
      ...interceptors,
      activity: [
        (ctx) => ({ inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx), outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx) }),
        ...(interceptors.activity ?? []),
      ],
      client: { ...interceptors.client, workflow: [...tracing.clientInterceptors(), ...((interceptors.client?.workflow as never[] | undefined) ?? [])] },
    },
    sinks: { ...base.sinks, exporter: otel.makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
