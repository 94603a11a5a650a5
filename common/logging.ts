/**
 * Logging for workers: Temporal's runtime, worker, workflow and activity logs through one logger.
 * Debug categories (the seeds' DebugUtil): `LIVECONTEXT_DEBUG=History,StateMachine,Provider,Tools,Widgets`
 * (or `all`) shows the debug messages tagged with those categories, at INFO level and prefixed with the
 * category. Workflow code logs them through the replay-safe workflow logger, so replays stay silent.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, type LogEntry, type LogLevel, type Logger, Runtime } from '@temporalio/worker';
import { runtimeTelemetryOptions } from './metrics';

export const DEBUG_CATEGORIES = ['History', 'StateMachine', 'Provider', 'Tools', 'Widgets'] as const;

export function enabledCategories(spec = process.env.LIVECONTEXT_DEBUG ?? ''): Set<string> {
  const names = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.some((n) => n.toLowerCase() === 'all')) return new Set(DEBUG_CATEGORIES);
  return new Set(names.map((n) => DEBUG_CATEGORIES.find((c) => c.toLowerCase() === n.toLowerCase()) ?? n));
}

/** Wraps a log sink: category-tagged DEBUG/TRACE entries pass only for enabled categories, as INFO. */
export function categoryFilter(sink: (entry: LogEntry) => void, categories = enabledCategories()): (entry: LogEntry) => void {
  return (entry) => {
    const category = entry.meta?.category;
    if (typeof category === 'string' && (entry.level === 'DEBUG' || entry.level === 'TRACE')) {
      if (!categories.has(category)) return;
      sink({ ...entry, level: 'INFO', message: `[${category}] ${entry.message}` });
      return;
    }
    sink(entry);
  };
}

let installed = false;

/** Opaque SDK internals (task tokens, binary blobs) tell a reader nothing: left out of log lines. */
function withoutNoise(key: string, value: unknown): unknown {
  return key === 'taskToken' || key === 'sdkComponent' ? undefined : value;
}

/**
 * Installs the process-wide Temporal runtime logger once: INFO and up (plus enabled debug categories)
 * to `file` when given; on stderr WARN and up unless LIVECONTEXT_LOG_LEVEL says otherwise (the SDK's
 * INFO lines, such as every worker state change, are noise on a console). Later calls do nothing.
 */
export function installLogging(options: { file?: string; level?: LogLevel } = {}): void {
  if (installed) return;
  installed = true;
  const write = options.file ? fileWriter(options.file) : (line: string) => process.stderr.write(line);
  const format = (e: LogEntry) => {
    const meta = e.meta && Object.keys(e.meta).length ? ` ${JSON.stringify(e.meta, withoutNoise)}` : '';
    return `${new Date(Number(e.timestampNanos / 1_000_000n)).toISOString()} [${e.level}] ${e.message}${meta}\n`;
  };
  const sink = categoryFilter((e) => write(format(e)));
  // Debug entries must reach the filter, so the base logger lets everything through and we filter here.
  const minimum = options.level ?? ((process.env.LIVECONTEXT_LOG_LEVEL?.toUpperCase() as LogLevel | undefined) || (options.file ? 'INFO' : 'WARN'));
  const order: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
  const logger: Logger = new DefaultLogger('TRACE', (entry) => {
    const categorised = typeof entry.meta?.category === 'string';
    if (!categorised && order.indexOf(entry.level) < order.indexOf(minimum)) return;
    sink(entry);
  });
  // The same runtime exports metrics when the environment asks for them (common/metrics.ts).
  Runtime.install({ logger, telemetryOptions: runtimeTelemetryOptions() });
}

function fileWriter(file: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  const out = createWriteStream(file, { flags: 'a' });
  return (line: string) => out.write(line);
}
