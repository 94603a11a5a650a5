/**
 * A span per gateway request (kind SERVER, `POST /agents/:id/input`, with http.request.method, the
 * route, url.full and the response status), made by Hono's OpenTelemetry middleware (`@hono/otel`).
 * It continues the caller's W3C `traceparent`, and the route's Temporal calls run in its context, so
 * one trace goes caller → gateway → update → workflow → activities. Only when this process traces
 * (OTEL_* set, see common/telemetry.ts): otherwise requests pass straight through.
 */
import { httpInstrumentationMiddleware } from '@hono/otel';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { activeTracing } from '../common/telemetry';

/** Middleware for the gateway app: install it first, so every request (refused ones too) has its span. */
export function traceRequests() {
  const traced = httpInstrumentationMiddleware({
    // The route pattern, not the path: agent ids stay out of span names (they are in url.full).
    spanNameFactory: (c: Context) => `${c.req.method} ${c.req.routePath === '/*' ? c.req.path : c.req.routePath}`,
    // Request metrics stay with the worker's exporter (common/metrics.ts), not a meter of the gateway's.
    captureActiveRequests: false,
  });
  // Decided per request: the tracer provider is registered when the gateway's client connects.
  return createMiddleware((c, next) => (activeTracing() ? traced(c, next) : next()));
}
