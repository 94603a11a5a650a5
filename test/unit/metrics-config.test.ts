/** Which metrics exporter the environment asks Temporal's runtime for (common/metrics.ts). */
import { metricsFromEnv } from '../../common/metrics';

test('off when nothing asks for metrics, or when turned off', () => {
  expect(metricsFromEnv({})).toBeUndefined();
  expect(metricsFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBeUndefined(); // traces only
  expect(metricsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none' })).toBeUndefined();
  expect(metricsFromEnv({ LIVECONTEXT_METRICS_PROMETHEUS: '127.0.0.1:9464', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
});

test('a Prometheus endpoint', () => {
  expect(metricsFromEnv({ LIVECONTEXT_METRICS_PROMETHEUS: '0.0.0.0:9464' })).toMatchObject({
    prometheus: { bindAddress: '0.0.0.0:9464', countersTotalSuffix: true },
  });
  expect(metricsFromEnv({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: '9100' })).toMatchObject({
    prometheus: { bindAddress: '127.0.0.1:9100' },
  });
});

test('OTLP after the OpenTelemetry variables', () => {
  expect(metricsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toMatchObject({
    otel: { url: 'http://collector:4318/v1/metrics', http: true },
  });
  expect(metricsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatchObject({
    otel: { url: 'http://collector:4317', http: false },
  });
  const full = metricsFromEnv({
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://m.example/v1/metrics',
    OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-team=a',
    OTEL_METRIC_EXPORT_INTERVAL: '5000',
    OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
  });
  expect(full).toMatchObject({
    otel: {
      url: 'https://m.example/v1/metrics',
      http: true,
      headers: { authorization: 'Bearer abc', 'x-team': 'a' },
      metricsExportInterval: 5000,
      temporality: 'delta',
    },
  });
  expect(metricsFromEnv({ OTEL_METRICS_EXPORTER: 'otlp' })).toMatchObject({ otel: { url: 'http://localhost:4318/v1/metrics' } });
  // Traces in JSON: metrics go in protobuf to the same OTLP/HTTP receiver.
  expect(metricsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toMatchObject({
    otel: { url: 'http://c:4318/v1/metrics', http: true },
  });
});
