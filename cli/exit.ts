/**
 * How the CLI process ends. Output to a pipe is written asynchronously, so process.exit() right after a
 * large write cuts it at the pipe's buffer (64 KiB) and still exits 0: `livecontext export A | gzip`
 * would make a silently truncated backup. So the process exits only once stdout and stderr have handed
 * everything to the reader. A reader that leaves early (`| head`) ends the process quietly, with
 * status 0, instead of an EPIPE stack trace.
 */
import { activeTracing } from '../common/telemetry';

/** The longest a command's exit waits for its spans to reach the collector (one that does not answer). */
const TRACE_FLUSH_MS = 3000;

/**
 * Ends the process with `code` once output is flushed. With tracing on, the spans the command made are
 * exported first: process.exit() skips `beforeExit`, and the batch processor would hold them for up to
 * 5 s, so a short command's trace would be lost.
 */
export function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  const tracing = activeTracing();
  if (!tracing) return exitAfterOutput(code);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, TRACE_FLUSH_MS)));
  void Promise.race([tracing.shutdown().catch(() => undefined), waited]).finally(() => {
    clearTimeout(timer);
    exitAfterOutput(code);
  });
}

function exitAfterOutput(code: number): void {
  let pending = 2;
  const flushed = () => {
    if (--pending === 0) process.exit(code);
  };
  // A write's callback runs once it, and so everything written before it, has been flushed.
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}

export function exitQuietlyWhenReaderLeaves(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
}
