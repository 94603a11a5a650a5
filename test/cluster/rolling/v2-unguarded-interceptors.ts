/**
 * The same v2 change without its `patched()` guard: what the rolling-deploy test replays old agents'
 * histories against, to show the guard is what keeps them replaying (this one must fail with a
 * non-determinism error).
 */
import { sleep, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      async scheduleActivity(input, next) {
        if (input.activityType === 'callModel') await sleep(1);
        return next(input);
      },
    },
  ],
});
