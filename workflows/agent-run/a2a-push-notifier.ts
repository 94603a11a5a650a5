/**
 * A2A push notifications from the workflow (see agent/a2a-push.ts): the `setA2aPush` update sets or
 * removes a task's webhook, and whenever a configured task's state changes — looked at before each step
 * and when the agent comes to rest — a delivery activity POSTs it. Deliveries of one config run one
 * after another (a receiver gets working, input-required, completed in order); one whose retries run out
 * is recorded as an `a2a_push` entry and the agent goes on: a webhook never blocks or stops the agent.
 *
 * @example
 * const push = a2aPushNotifier(agent, run, changed);
 * push.check(); // before a step: schedules what is due
 * await push.drain(); // before continue-as-new: the deliveries in flight finish in this run
 */
import { log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Agent, A2aPushDelivery } from '../../agent/index';
import type { createActivities } from '../../activities/index';
import { A2A_PUSH_ACTIVITY_OPTIONS } from '../activity-options';
import { setA2aPushUpdate } from '../messages';
import { refusing } from './failures';
import type { RunControl } from './run-control';

/** Since this change the agent delivers A2A push notifications. Asked where the first delivery is scheduled. */
export const A2A_PUSH_CHANGE = 'a2a-push-notifications';

const { deliverA2aPush } = proxyActivities<ReturnType<typeof createActivities>>(A2A_PUSH_ACTIVITY_OPTIONS);

export interface A2aPushNotifier {
  /** Schedules the notifications due now. */
  check(): void;
  /** Waits for the deliveries in flight. */
  drain(): Promise<void>;
}

export function a2aPushNotifier(agent: Agent, run: RunControl, changed: (id: string) => boolean): A2aPushNotifier {
  const chains = new Map<string, Promise<void>>();
  const deliver = (d: A2aPushDelivery) =>
    deliverA2aPush(d).then(
      () => undefined,
      (err: unknown) => {
        const why = failureText(err);
        agent.recordA2aPushFailure(d, why);
        log.warn('A2A push notification not delivered', { category: 'A2A', deliveryId: d.deliveryId, error: why });
      },
    );
  const notifier: A2aPushNotifier = {
    check() {
      if (!agent.config.a2aPush?.length || !changed(A2A_PUSH_CHANGE)) return;
      for (const d of agent.a2aPushDue(workflowInfo().workflowId)) {
        const key = `${d.inputSeq}/${d.configId}`;
        const next = (chains.get(key) ?? Promise.resolve()).then(() => deliver(d));
        chains.set(key, next);
        void next.then(() => {
          if (chains.get(key) === next) chains.delete(key);
        });
      }
    },
    async drain() {
      while (chains.size) await Promise.all(chains.values());
    },
  };
  setHandler(
    setA2aPushUpdate,
    run.counted((raw) => {
      const set = agent.setA2aPush(raw);
      notifier.check(); // a task that moved before its config came is notified now
      return set;
    }),
    { validator: refusing((raw) => void agent.checkA2aPush(raw)) },
  );
  return notifier;
}

/** The innermost message of an activity failure (its cause says what the webhook did). */
function failureText(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e?.cause) e = e.cause as typeof e;
  return String(e?.message ?? err);
}
