/**
 * How the CLI process ends. Output to a pipe is written asynchronously, so process.exit() right after a
 * large write cuts it at the pipe's buffer (64 KiB) and still exits 0: `livecontext export A | gzip`
 * would make a silently truncated backup. So the process exits only once stdout and stderr have handed
 * everything to the reader. A reader that leaves early (`| head`) ends the process quietly, with
 * status 0, instead of an EPIPE stack trace.
 */

export function exitWhenFlushed(code: number): void {
  process.exitCode = code;
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
