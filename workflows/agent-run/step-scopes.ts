/**
 * The cancellation scopes steps run in. A new scope per step cost as much worker time as the rest of a
 * plain turn's step (each makes promises the SDK traces, and links itself to the root scope for the
 * run's life), so a scope serves step after step while cancelling it could only reach the step in
 * flight: whatever an earlier step started has ended with it (activities, timers), and a cancel finds
 * nothing of theirs to cancel, so it issues the same commands a fresh scope would. A scope is replaced
 * once cancelled, after a step that started a child agent (which outlives the step: a later interrupt
 * must not cancel it), and every SCOPE_STEPS steps (each activity leaves a small handler on it).
 */
import { CancellationScope } from '@temporalio/workflow';

const SCOPE_STEPS = 100;

export function stepScopes() {
  let current: CancellationScope | undefined;
  let used = 0;
  let childStarted = false;
  return {
    scope(): CancellationScope {
      childStarted = false;
      return (current ??= new CancellationScope());
    },
    childStarted(): void {
      childStarted = true;
    },
    done(scope: CancellationScope): void {
      if (scope.consideredCancelled || childStarted || ++used >= SCOPE_STEPS) {
        current = undefined;
        used = 0;
      }
    },
  };
}
