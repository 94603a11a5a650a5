/**
 * OpenTelemetry tracing for livecontext's processes (worker, client, gateway), configured by the
 * standard `OTEL_*` environment variables and off when none is set: then no SDK is loaded, no
 * interceptor is installed and the spans livecontext's own code opens are the API's no-ops.
 *
 * When on, one tracer provider per process (registered globally, with the W3C trace-context propagator)
 * exports over OTLP: `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT`, `_HEADERS`, `_TIMEOUT` and
 * `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` (`http/protobuf`, the default, `http/json` or `grpc`) are read
 * by the official exporters; `OTEL_TRACES_EXPORTER` may be `otlp`, `console` or `none`;
 * `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` name the resource; `OTEL_TRACES_SAMPLER` and
 * `OTEL_BSP_*` are read by the SDK. Temporal's interceptors carry the trace context from the client
 * through the workflow into activities (see tracingWorkerOptions in worker/create-worker.ts).
 */
import type * as otel from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';

/** A running tracer provider: what the worker and the clients of this process hand their spans to. */
export interface Tracing {
  readonly resource: Resource;
  /** Where every span of this process goes, workflow spans (through the worker's sink) included. */
  readonly spanProcessor: SpanProcessor;
  /** Temporal client interceptors that open a span per call and pass its context in the headers. */
  clientInterceptors(): WorkflowClientInterceptor[];
  /** Exports what is buffered. */
  flush(): Promise<void>;
  /** Flushes and stops the provider; tracing can then be started again. */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  /** Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Spans go here instead of the exporter the environment names; tracing starts whatever the environment says. */
  spanProcessor?: SpanProcessor;
  /** service.name when OTEL_SERVICE_NAME does not set one (default `livecontext`). */
  serviceName?: string;
}

/** The variables whose presence turns tracing on (unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none). */
export const TRACING_ENV_VARS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_EXPORTER', 'OTEL_SERVICE_NAME'] as const;

/** Whether the environment asks for traces. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return TRACING_ENV_VARS.some((name) => !!env[name]?.trim());
}

/** Whether prompts and answers may go into spans (LIVECONTEXT_TRACE_CONTENT=1): off by default. */
export function traceContentWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LIVECONTEXT_TRACE_CONTENT === '1';
}

let active: Tracing | undefined;

/** The tracing this process started, if any. */
export function activeTracing(): Tracing | undefined {
  return active;
}

/**
 * Starts tracing for this process when the environment asks for it (or a span processor is given),
 * once: later calls return the same Tracing. Returns undefined when tracing stays off.
 */
export function startTracing(options: StartTracingOptions = {}): Tracing | undefined {
  if (active) return active;
  const env = options.env ?? process.env;
  if (!options.spanProcessor && !tracingWanted(env)) return undefined;
  // Loaded only now: a process without OTEL_* settings never loads the SDK.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const resources = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { OpenTelemetryWorkflowClientInterceptor } =
    require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  /* eslint-enable @typescript-eslint/no-require-imports */

  const detected = resources.detectResourcesSync({ detectors: [resources.envDetectorSync] });
  const resource = resources.Resource.default()
    .merge(new resources.Resource({ 'service.name': options.serviceName ?? 'livecontext' }))
    .merge(detected); // OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES win
  const exporter = options.spanProcessor ? undefined : exporterFromEnv(env);
  const spanProcessor = options.spanProcessor ?? (exporter ? new BatchSpanProcessor(exporter) : undefined);
  if (!spanProcessor) return undefined;
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register(); // global provider, AsyncLocalStorage context manager, W3C trace-context + baggage
  const tracing: Tracing = {
    resource,
    spanProcessor,
    clientInterceptors: () => [new OpenTelemetryWorkflowClientInterceptor()],
    flush: () => provider.forceFlush(),
    async shutdown() {
      if (active === tracing) active = undefined;
      await provider.shutdown();
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const api = require('@opentelemetry/api') as typeof otel;
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
    },
  };
  active = tracing;
  // Short-lived processes (a CLI command) end without shutting down: export what is buffered first.
  process.once('beforeExit', () => void provider.forceFlush().catch(() => undefined));
  return tracing;
}

/** The span exporter OTEL_TRACES_EXPORTER and the OTLP protocol variables name (undefined: none). */
function exporterFromEnv(env: NodeJS.ProcessEnv) {
  const kind = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',')[0]!.trim().toLowerCase() || 'otlp';
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (kind === 'none') return undefined;
  if (kind === 'console') {
    const { ConsoleSpanExporter } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
    return new ConsoleSpanExporter();
  }
  if (kind !== 'otlp') throw new Error(`OTEL_TRACES_EXPORTER=${kind} is not supported by livecontext: use otlp, console or none.`);
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim().toLowerCase();
  // The exporters read headers and timeouts from process.env themselves; the endpoint is passed from
  // `env` so a caller's environment decides where spans go (the spec's default when none is named).
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (protocol === 'grpc') {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc');
    const url = traces || base;
    return new OTLPTraceExporter(url ? { url } : {});
  }
  const url = traces || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (protocol === 'http/json') {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(url ? { url } : {});
  }
  if (protocol !== 'http/protobuf') throw new Error(`OTLP protocol "${protocol}" is not supported: use http/protobuf, http/json or grpc.`);
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(url ? { url } : {});
  /* eslint-enable @typescript-eslint/no-require-imports */
}
