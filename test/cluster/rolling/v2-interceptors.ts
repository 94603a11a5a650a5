/**
 * "Worker code v2" of the rolling-deploy test: a workflow change bundled into the agent workflow as a
 * workflow interceptor (so the test changes the agent's workflow code without a second copy of it). v2 waits
 * on a 1 ms timer before each model call — a new command, which replaying an old agent's history would
 * reject — guarded by `patched()`: decided once when a run starts (an agent that started on v1 replays
 * without the marker and keeps the v1 path for its whole run; a new one records the marker and takes v2's).
 */
import { patched, sleep, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** The patch id v2 records in the history of a run that takes the new path. */
export const ROLLING_PATCH = 'cluster-rolling-v2';

export const interceptors: WorkflowInterceptorsFactory = () => {
  let newPath = false;
  return {
    inbound: [
      {
        async execute(input, next) {
          newPath = patched(ROLLING_PATCH);
          return next(input);
        },
      },
    ],
    outbound: [
      {
        async scheduleActivity(input, next) {
          if (newPath && input.activityType === 'callModel') await sleep(1);
          return next(input);
        },
      },
    ],
  };
};
