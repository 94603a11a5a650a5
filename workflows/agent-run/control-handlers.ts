/**
 * The agent workflow's control handlers: configure, notebook writes, tool decisions, retry, sub-agent
 * results, interrupt, reset and stop. Each asks the run control for what the run loop must do; none
 * waits for the loop except interrupt. Registered before the run's first await, in this order.
 */
import { condition, log, setHandler } from '@temporalio/workflow';
import { type Agent, type AgentStatus, AgentRunState, type ConfigChange, InputRejectedError, type RewindResult } from '../../agent/index';
import {
  configureSignal,
  configureUpdate,
  decideToolCallSignal,
  decideToolCallUpdate,
  answerWaitUpdate,
  setToolRulesUpdate,
  interruptUpdate,
  type InterruptRequest,
  type NotebookWrite,
  resetUpdate,
  resolveToolCallUpdate,
  retrySignal,
  rewindUpdate,
  stopSignal,
  subAgentResultSignal,
  updateNotebookUpdate,
} from '../messages';
import { rewindIntoArchive } from './archived-rewind';
import { refusing } from './failures';
import { type RunControl, stopReasonOf } from './run-control';

export interface ControlHandlerDeps {
  /** The `state` query's answer, also the result of configure and decideToolCall. */
  status(): AgentStatus;
  /** Keeps the search attributes current after a configuration change. */
  publish(): void;
  /** The workflow's since-change (patched) check, for changes asked where they happen. */
  changed?: (change: string) => boolean;
}

export function registerControlHandlers(agent: Agent, run: RunControl, { status, publish, changed }: ControlHandlerDeps): void {
  const applyConfig = (change: ConfigChange) => {
    agent.configure(change);
    run.requestRetry(); // a new configuration is a reason to try a failed call again
    publish();
    log.debug('configuration changed', { category: 'History', fields: Object.keys(change ?? {}) });
  };
  setHandler(configureSignal, (change) => {
    try {
      applyConfig(change);
    } catch (err) {
      log.warn('configure signal dropped', { category: 'History', reason: (err as Error).message });
    }
  });
  setHandler(
    configureUpdate,
    run.counted((change) => {
      applyConfig(change);
      return status();
    }),
    { validator: refusing((change) => void agent.checkConfigChange(change)) },
  );

  setHandler(
    updateNotebookUpdate,
    run.counted(({ by, ...write }) => {
      const { entry, outcome } = agent.writeWidget('memory_notebook', write, by);
      log.debug(`notebook written by the host: ${outcome.result}`, { category: 'Widgets', seq: entry.seq });
      return { notebook: agent.notebook.content, seq: entry.seq };
    }),
    {
      validator: refusing((request) => {
        const { by, ...write } = (request ?? {}) as NotebookWrite;
        if (by !== undefined && (typeof by !== 'string' || by.length > 200))
          throw new InputRejectedError('BAD_WIDGET_WRITE', '`by` is a name of at most 200 characters.');
        agent.checkWidgetWrite('memory_notebook', write);
      }),
    },
  );

  const decide = (raw: unknown) => {
    const d = agent.decideToolCall(raw, changed); // validated the same way for the update and the signal
    run.decided();
    log.debug(`tool call ${d.toolCallId} ${d.approved ? 'approved' : 'denied'}`, { category: 'Tools', by: d.by });
  };
  setHandler(
    decideToolCallUpdate,
    run.counted((d) => {
      decide(d);
      return status();
    }),
    { validator: refusing((d) => void agent.checkDecision(d)) },
  );
  setHandler(decideToolCallSignal, (d) => {
    try {
      decide(d);
    } catch (err) {
      log.warn('tool decision dropped', { category: 'Tools', reason: (err as Error).message });
    }
  });

  setHandler(
    resolveToolCallUpdate,
    run.counted((r) => {
      const resolved = agent.resolveToolCall(r);
      run.decided(); // wakes a loop blocked on the call, as a decision does
      log.debug(`tool call ${resolved.toolCallId} resolved`, { category: 'Tools', by: resolved.by });
      return status();
    }),
    { validator: refusing((r) => void agent.checkResolution(r)) },
  );

  // One update answers every kind of wait, through whichever door (see agent/waits.ts).
  setHandler(
    answerWaitUpdate,
    run.counted((raw) => {
      const answered = agent.answerWait(raw, changed);
      run.decided(); // wakes a loop blocked on the wait
      log.debug(`wait ${answered.waitId} answered`, { category: 'Tools', by: raw.by, door: raw.door });
      return { ...answered, status: status() };
    }),
    { validator: refusing((raw) => void agent.checkWaitAnswer(raw)) },
  );
  setHandler(
    setToolRulesUpdate,
    run.counted((raw) => {
      const set = agent.setToolRules(raw);
      run.decided(); // a call waiting for approval may be allowed (or denied) by the new rules
      log.debug(`tool rules set: ${set.rules.length} rule(s)`, { category: 'Tools', seq: set.seq });
      return set;
    }),
    { validator: refusing((raw) => void agent.checkToolRules(raw)) },
  );

  setHandler(retrySignal, () => run.requestRetry(true));

  // Sub-agents report to the run that is current when they finish; their calls are in the agent's state.
  setHandler(subAgentResultSignal, (result) => {
    try {
      const r = agent.recordSubAgentResult(result);
      log.debug(`sub-agent ${r.agentId} answered ${r.toolCallId}: ${r.status}`, { category: 'Tools' });
    } catch (err) {
      log.warn('sub-agent result dropped', { category: 'Tools', reason: (err as Error).message });
    }
  });

  // An interrupt cancels the step in flight (its model call or tools) and has the agent record it.
  setHandler(
    interruptUpdate,
    run.counted(async (request) => {
      const by = typeof request?.by === 'string' ? request.by.slice(0, 200) : undefined;
      if (agent.runState === AgentRunState.WaitingInput) return { interrupted: false, lastSeq: agent.state.lastSeq };
      const seen = run.interrupts;
      run.requestInterrupt(by);
      await condition(() => run.interrupts !== seen || run.ending());
      return { interrupted: run.interrupts !== seen, lastSeq: agent.state.lastSeq };
    }),
    { validator: refusing((request: InterruptRequest | undefined) => agent.checkInterrupt(request?.inputSeq)) },
  );
  setHandler(
    resetUpdate,
    run.counted(() => {
      run.requestReset();
      return { reset: true as const };
    }),
  );
  // A rewind is made at rest (the validator refuses a working agent, so nothing is in flight to cancel).
  setHandler(
    rewindUpdate,
    run.counted((request) => {
      const done = (result: RewindResult) => {
        publish();
        log.info(`rewound to #${result.toSeq}`, { category: 'History', seq: result.seq, rewound: result.rewound });
        return result;
      };
      // Into the archive: an activity reads the state at the entry first (see archived-rewind.ts).
      if (agent.rewindsIntoArchive(request)) return rewindIntoArchive(agent, run, request).then(done);
      return done(run.rewind(request));
    }),
    { validator: refusing((request) => void agent.checkRewind(request, { archived: true })) },
  );
  setHandler(stopSignal, (arg) => run.requestStop(stopReasonOf(arg)));
}
