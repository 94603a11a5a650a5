/**
 * CPU-bound work written as a generator that yields wherever it may pause, so the same code can run
 * at once or in slices that leave the worker's event loop free (heartbeats, other agents' activities).
 */
export type SlicedWork<T> = Generator<void, T, void>;

export function runNow<T>(work: SlicedWork<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** Longest stretch of work between two turns of the event loop. */
const SLICE_MS = 10;

export async function runSliced<T>(work: SlicedWork<T>): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}
