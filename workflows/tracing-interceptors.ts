/**
 * Temporal's OpenTelemetry workflow interceptors, bundled with the agent workflows when tracing is on
 * (see activities/telemetry/worker-tracing.ts). Not a workflow.
 *
 * Update validators and query handlers get no span here: they run only in the activation that receives
 * them, never on replay, and a span's id is drawn from the workflow's seeded random numbers. A span
 * they drew would shift every later id, so a workflow replayed on another worker (or after eviction)
 * would give its spans other ids than the ones its activities were told as parents. Signals and update
 * handlers are in history and replay alike, so they keep their spans; the client's query span remains.
 */
// The package's documented workflow-side entry (its index also loads Node-only worker code).
// eslint-disable-next-line no-restricted-imports
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { Next, QueryInput, UpdateInput, WorkflowInboundCallsInterceptor, WorkflowInterceptors } from '@temporalio/workflow';

class ReplayStableInboundInterceptor extends OpenTelemetryInboundInterceptor {
  override validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    return next(input);
  }
  override handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>): Promise<unknown> {
    return next(input);
  }
}

export const interceptors = (): WorkflowInterceptors => ({
  inbound: [new ReplayStableInboundInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
