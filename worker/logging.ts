/** Sends Temporal's runtime, worker and workflow logs to a file, so they do not interleave with a chat. */
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, type LogLevel, Runtime } from '@temporalio/worker';

export function logToFile(file: string, level: LogLevel = 'INFO'): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const out = createWriteStream(file, { flags: 'a' });
  Runtime.install({
    logger: new DefaultLogger(level, ({ level: l, message, meta }) => {
      out.write(`${new Date().toISOString()} [${l}] ${message}${meta ? ` ${JSON.stringify(meta)}` : ''}\n`);
    }),
  });
}
