/**
 * The agent workflow: seed 004's state machine, durable. It runs `doStep()` until the agent is blocked
 * on input, then waits for input. Everything the agent knows lives in `Agent` (pure, in ../agent), and
 * everything this run knows beside it in its RunControl; this file wires Temporal to them: handlers in
 * (agent-run/*-handlers.ts), activities out (agent-run/step-deps.ts), and the run loop, which moves to a
 * new run when the watchers say so (agent-run/history-monitor.ts, state-carrier.ts).
 */
import { allHandlersFinished, condition, continueAsNew, log, workflowInfo } from '@temporalio/workflow';
import type { Agent } from '../agent/index';
import { agentMetrics } from './agent-metrics';
import { registerControlHandlers } from './agent-run/control-handlers';
import { registerElicitationHandlers } from './agent-run/elicitation-handlers';
import { createAgent } from './agent-run/create-agent';
import { wasCancelled } from './agent-run/failures';
import { archiveSealer } from './agent-run/archive-sealer';
import { historyMonitor } from './agent-run/history-monitor';
import { registerInputHandlers } from './agent-run/input-handlers';
import { registerQueries } from './agent-run/query-handlers';
import { RunControl } from './agent-run/run-control';
import { searchAttributePublisher } from './agent-run/search-attributes';
import { stateCarrier } from './agent-run/state-carrier';
import { stepDeps, type StepWaits } from './agent-run/step-deps';
import { stepScopes } from './agent-run/step-scopes';
import { subAgentLink } from './agent-run/sub-agent-link';
import type { AgentWorkflowInput } from './messages';
import { runChangesByBuild } from './run-changes-by-build';
import { a2aPushNotifier } from './agent-run/a2a-push-notifier';

export interface AgentWorkflowResult {
  stopped: true;
  reason: string;
  lastSeq: number;
}

export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentWorkflowResult> {
  const changed = runChangesByBuild(); // first: its marker, if any, goes with the run's first task
  const clock = () => Date.now(); // Temporal's deterministic clock inside workflows
  const agent = createAgent(input, clock, changed);
  const run = new RunControl(agent, changed);
  const visibility = searchAttributePublisher(agent, changed);
  const metrics = agentMetrics(agent); // replay-safe counters: turns, blocks, continue-as-new
  const carrier = stateCarrier(agent, changed);
  const sealer = archiveSealer(agent, changed);
  const status = () => agent.status({ stopping: run.stopping, warning: carrier.refusal });

  // Every handler is set before the first await, in this order, so messages that came with the start find theirs.
  registerInputHandlers(agent, run, changed);
  registerControlHandlers(agent, run, { status, publish: () => visibility.publish(), changed });
  registerQueries(agent, status);
  const push = a2aPushNotifier(agent, run, changed);
  registerElicitationHandlers(agent, run, changed);

  const history = historyMonitor(agent, () => run.overUpdateBudget());
  const steps = stepScopes();
  const waits: StepWaits = {
    childStarted: () => steps.childStarted(),
    subAgentWaitEnds: () => run.ending() || !!run.interruptRequest,
    // A running sleep gives way when this run must end: stop, reset, or a history grown too long while
    // the agent slept (inputs keep arriving). Its timer is in the agent's state and resumes in the next run.
    runMovesOn: () => run.ending() || (history.tooLongWhileWaiting() && !carrier.blocked),
    movedOn: () => run.continueUnlessEnding(),
  };
  const subAgents = subAgentLink(agent, run, changed, waits, agentWorkflow);
  const deps = stepDeps(agent, changed, waits, subAgents.delegate);
  const recordInterrupt = (request: { by?: string }) => {
    void subAgents.stopAll('the turn that asked was interrupted'); // its calls are answered Skipped right away
    if (agent.interrupt(request.by)) log.info('turn interrupted', { category: 'StateMachine', by: request.by });
    run.interruptRecorded();
  };

  for (;;) {
    while (!run.ending()) {
      if (run.interruptRequest) {
        recordInterrupt(run.interruptRequest);
        continue;
      }
      push.check(); // the task of the turn may have moved: its webhook hears it
      let outcome: Awaited<ReturnType<Agent['doStep']>>;
      // A scope for the step, so an interrupt cancels exactly what this step has in flight.
      const scope = run.stepStarts(steps.scope());
      try {
        outcome = await scope.run(() => agent.doStep(deps));
      } catch (err) {
        if (!run.interruptRequest || !wasCancelled(err)) throw err;
        outcome = 'ProgressMade';
      } finally {
        steps.done(scope);
        run.stepEnded();
      }
      if (run.interruptRequest) {
        recordInterrupt(run.interruptRequest);
        continue;
      }
      // A safe point: no activity of ours is in flight. Long agents move to a fresh run here.
      if (history.tooLong() && !carrier.blocked) {
        run.continueAsNew();
        break;
      }
      if (outcome === 'ProgressMade') {
        visibility.progressed();
        metrics.progressed();
        continue;
      }
      // A sub-agent's work ends with its task's outcome (checked first: an await per rest costs promises the SDK traces).
      if (agent.config.delegatedBy && (await subAgents.reportToParent())) break;
      push.check();
      visibility.publish(outcome);
      metrics.rested(outcome);
      await sealer.sealAll(); // the agent rests: a good time to move its oldest turns to the archive
      if (outcome === 'BlockedOnInput') {
        // An input waits while a rewind reads its archived point: the rewind is made first, the input kept.
        await condition(() => (agent.inbox.length > 0 && !run.readingRewindPoint) || run.ending() || run.overUpdateBudget() || run.rewound);
      } else if (outcome === 'BlockedOnApproval') {
        const seen = run.decisions;
        await condition(() => run.decisions !== seen || run.ending() || !!run.interruptRequest);
      } else if (outcome === 'BlockedOnError') {
        await condition(() => run.retryRequested || run.ending() || !!run.interruptRequest || run.rewound);
        run.retryTaken();
      }
      run.rewindTaken();
      visibility.woke(outcome);
    }
    if (!run.continuing || run.stopping || run.resetRequested) break;
    await sealer.sealAll(); // the new run carries only the working set
    await push.drain(); // notifications in flight are delivered by this run (their progress is carried)
    if (await carrier.canCarry()) {
      await condition(allHandlersFinished);
      if (run.stopping || run.resetRequested) break; // arrived while the worker was asked
      // Lossless: the new run starts from the whole agent — working set and archive index, pending results,
      // approvals, inbox, configuration, widgets. Large state is offloaded by the payload codec, never truncated.
      const snapshot = carrier.carried(); // checked here, with no await before the continue-as-new: what is carried is what was checked
      if (snapshot) {
        log.info('continuing as new', {
          category: 'History',
          historySize: workflowInfo().historySize,
          entries: agent.state.entries.length,
          archived: agent.state.archive?.entries ?? 0,
        });
        metrics.continuedAsNew('history');
        await continueAsNew<typeof agentWorkflow>({ snapshot, checked: true });
      }
    }
    run.stayInRun(); // the state cannot be carried: this run goes on (see stateCarrier)
  }
  if (run.stopping || run.resetRequested) await subAgents.stopAll(run.stopping ? `its parent stopped: ${run.stopReason}` : 'its parent was reset');
  push.check();
  await push.drain();
  await subAgents.reportToParent(); // stopped before its task had an outcome: the parent hears it failed
  await condition(allHandlersFinished);
  if (run.resetRequested && !run.stopping) {
    // Start over: a new run with a fresh history, the same configuration and the queued input.
    metrics.continuedAsNew('reset');
    await continueAsNew<typeof agentWorkflow>({ snapshot: agent.resetSnapshot() });
  }
  return { stopped: true, reason: run.stopReason ?? 'stop requested', lastSeq: agent.state.lastSeq };
}
