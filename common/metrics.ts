/**
 * Metrics for livecontext workers: Temporal's own worker metrics (task slots, latencies, polls, sticky
 * cache…) and livecontext's (turns, model calls, tokens and cost by model, tool failures by kind,
 * blocked agents by reason, continue-as-new) leave through one exporter, the one Temporal's Core
 * runtime has: a Prometheus endpoint to scrape, or OTLP pushed to a collector. Configured by the
 * environment, off when nothing asks for it (then the metric calls livecontext makes are no-ops).
 *
 * - `LIVECONTEXT_METRICS_PROMETHEUS=127.0.0.1:9464` (or `OTEL_METRICS_EXPORTER=prometheus` with
 *   `OTEL_EXPORTER_PROMETHEUS_HOST`/`_PORT`, default localhost:9464): a `/metrics` endpoint.
 * - OTLP, after the OpenTelemetry variables: `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`, or
 *   `OTEL_EXPORTER_OTLP_ENDPOINT` (+ `/v1/metrics` over HTTP) unless `OTEL_METRICS_EXPORTER=none`;
 *   `OTEL_EXPORTER_OTLP_(METRICS_)PROTOCOL` (`grpc`, else `http/protobuf`), `_HEADERS`,
 *   `OTEL_METRIC_EXPORT_INTERVAL` (ms), `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`.
 * - `OTEL_SDK_DISABLED=true` or `OTEL_METRICS_EXPORTER=none` turn metrics off.
 *
 * The runtime is process-wide and configured once, before the first connection: installLogging and
 * createLivecontextWorker install it with these options (see installRuntimeMetrics).
 */
import { Runtime, type TelemetryOptions } from '@temporalio/worker';

type MetricsConfig = NonNullable<TelemetryOptions['metrics']>;

/** The Prometheus endpoint or OTLP collector the environment names for metrics; undefined: metrics off. */
export function metricsFromEnv(env: NodeJS.ProcessEnv = process.env): MetricsConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_METRICS_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes('none')) return undefined;
  // Every metric is named as livecontext and Temporal document it, whatever the exporter.
  const common = { metricPrefix: 'temporal_' };
  const bind = env.LIVECONTEXT_METRICS_PROMETHEUS?.trim();
  if (bind || exporters.includes('prometheus')) {
    const bindAddress = bind || `${env.OTEL_EXPORTER_PROMETHEUS_HOST?.trim() || '127.0.0.1'}:${env.OTEL_EXPORTER_PROMETHEUS_PORT?.trim() || '9464'}`;
    // `_total` on counters, as Prometheus' naming conventions (and its OpenMetrics parser) expect.
    return { ...common, prometheus: { bindAddress, countersTotalSuffix: true } };
  }
  const metricsEndpoint = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!metricsEndpoint && !base && !exporters.includes('otlp')) return undefined;
  // Temporal's runtime speaks OTLP/gRPC and OTLP/HTTP with protobuf; `http/json` (fine for traces) gets
  // protobuf, which every OTLP/HTTP receiver takes on the same endpoint.
  const protocol = (env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim().toLowerCase();
  const http = protocol !== 'grpc';
  const url =
    metricsEndpoint || (base ? (http ? `${base.replace(/\/+$/, '')}/v1/metrics` : base) : http ? 'http://localhost:4318/v1/metrics' : 'http://localhost:4317');
  const headers = parseHeaders(env.OTEL_EXPORTER_OTLP_METRICS_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS);
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  const temporality = env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE?.trim().toLowerCase();
  return {
    ...common,
    otel: {
      url,
      http,
      ...(headers ? { headers } : {}),
      ...(interval > 0 ? { metricsExportInterval: interval } : {}),
      ...(temporality === 'delta' || temporality === 'cumulative' ? { temporality } : {}),
    },
  };
}

/** Core's telemetry options for Runtime.install: metrics from the environment, nothing else changed. */
export function runtimeTelemetryOptions(env: NodeJS.ProcessEnv = process.env): TelemetryOptions | undefined {
  const metrics = metricsFromEnv(env);
  return metrics ? { metrics } : undefined;
}

/**
 * Installs Temporal's runtime with the metrics exporter the environment names, when it asks for one
 * and no runtime exists yet (installLogging installs one with the same options). Returns whether the
 * process exports metrics. A runtime made earlier without them cannot be changed: that is logged once.
 */
export function installRuntimeMetrics(env: NodeJS.ProcessEnv = process.env): boolean {
  const telemetryOptions = runtimeTelemetryOptions(env);
  if (!telemetryOptions) return false;
  if (!Runtime._instance) {
    Runtime.install({ telemetryOptions });
    return true;
  }
  if (Runtime.defaultOptions.telemetryOptions?.metrics) return true; // the options it was made with
  if (!warned)
    Runtime._instance.logger.warn(
      "Metrics are asked for, but Temporal's runtime was created before without them: none are exported. Call installLogging() or installRuntimeMetrics() before the first connection.",
    );
  warned = true;
  return false;
}
let warned = false;

/** `k1=v1,k2=v2` (the OTLP headers format, values URL-encoded). */
function parseHeaders(spec: string | undefined): Record<string, string> | undefined {
  if (!spec?.trim()) return undefined;
  const entries = spec.split(',').map((pair) => {
    const at = pair.indexOf('=');
    return at > 0 ? ([pair.slice(0, at).trim(), decodeURIComponent(pair.slice(at + 1).trim())] as const) : undefined;
  });
  return Object.fromEntries(entries.filter((e): e is readonly [string, string] => !!e));
}
