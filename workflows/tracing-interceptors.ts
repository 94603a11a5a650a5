/**
 * Temporal's OpenTelemetry workflow interceptors, bundled with the agent workflows when tracing is on
 * (see activities/telemetry/worker-tracing.ts). Not a workflow.
 *
 * Two changes to Temporal's own set:
 * - A turn's work joins the trace of the input that asked for it. An agent's run lives for many turns,
 *   so its activities would otherwise all hang under the run's span, in the trace of the agent's start.
 *   Activities and child workflows are scheduled in the context of the latest input accepted (its
 *   `HandleUpdate:ask` / `HandleUpdate:sendInput` / `HandleSignal:input` span): client → update → workflow → model call →
 *   tool → model call in one trace per turn. Inputs queued behind a running turn take over from when
 *   they arrive (the interceptors do not see which input a step serves).
 * - Update validators and query handlers get no span: they run only in the activation that receives
 *   them, never on replay, and a span's id is drawn from the workflow's seeded random numbers. A span
 *   they drew would shift every later id, so a workflow replayed on another worker (or after eviction)
 *   would give its spans other ids than the ones its activities were told as parents.
 */
import { type Context, context as otelContext } from '@opentelemetry/api';
// The package's documented workflow-side entry (its index also loads Node-only worker code).
// eslint-disable-next-line no-restricted-imports
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type {
  ActivityInput,
  LocalActivityInput,
  Next,
  QueryInput,
  SignalInput,
  StartChildWorkflowExecutionInput,
  UpdateInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { askUpdate, inputSignal, sendInputUpdate } from './messages';

/** The context of the latest input this workflow accepted; one per workflow (made by `interceptors()`). */
interface TurnContext {
  current?: Context;
}

class AgentInboundInterceptor extends OpenTelemetryInboundInterceptor {
  constructor(private readonly turn: TurnContext) {
    super();
  }
  override handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    return super.handleSignal(input, (i) => {
      if (i.signalName === inputSignal.name) this.turn.current = otelContext.active();
      return next(i);
    });
  }
  override handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    return super.handleUpdate(input, (i) => {
      if (i.name === sendInputUpdate.name || i.name === askUpdate.name) this.turn.current = otelContext.active();
      return next(i);
    });
  }
  override validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    return next(input);
  }
  override handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>): Promise<unknown> {
    return next(input);
  }
}

/** Runs before Temporal's outbound interceptor, so its schedule span is opened in the turn's context. */
class TurnOutboundInterceptor implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly turn: TurnContext) {}
  private inTurn<T>(fn: () => T): T {
    return this.turn.current ? otelContext.with(this.turn.current, fn) : fn();
  }
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return this.inTurn(() => next(input));
  }
  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return this.inTurn(() => next(input));
  }
  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return this.inTurn(() => next(input));
  }
}

export const interceptors = (): WorkflowInterceptors => {
  const turn: TurnContext = {};
  return {
    inbound: [new AgentInboundInterceptor(turn)],
    // The first is the outermost: the turn's context is set when Temporal's interceptor opens its span.
    outbound: [new TurnOutboundInterceptor(turn), new OpenTelemetryOutboundInterceptor()],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
