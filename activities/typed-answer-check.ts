/**
 * A typed answer checked against its schema without blocking the worker. The schema's `pattern`s (and
 * `patternProperties`) are regular expressions from whoever sent the input, run against what the model
 * wrote; a backtracking one (`^(a|a)+$` on "aaaa…!") runs for minutes, and on the worker's event loop it
 * would stop every agent the worker serves. So a schema with patterns is checked in a thread of its own
 * with a time limit (the thread is ended there, and the check fails saying why); a schema without any
 * runs here, where zod's own checks are linear in the answer. The thread keeps JavaScript's regular
 * expressions, as JSON Schema specifies them: a linear-time engine (RE2) lacks lookarounds and
 * backreferences, which valid schemas use.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { type ResponseSchema, type StructuredAnswer, parseStructuredAnswer, schemaPatterns } from '../agent/index';

/** The longest a check with patterns may take; LIVECONTEXT_SCHEMA_CHECK_MS sets another. */
export const SCHEMA_CHECK_TIME_LIMIT_MS = 10_000;

export type CheckedAnswer = StructuredAnswer | { ok: false; stopped: string };

export function schemaCheckTimeLimitMs(): number {
  const fromEnv = Number(process.env.LIVECONTEXT_SCHEMA_CHECK_MS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : SCHEMA_CHECK_TIME_LIMIT_MS;
}

/** `text` read and checked against `schema` (parseStructuredAnswer), off the event loop when the schema has patterns. */
export async function checkStructuredAnswer(text: string, schema: ResponseSchema, limitMs = schemaCheckTimeLimitMs()): Promise<CheckedAnswer> {
  const patterns = schemaPatterns(schema.schema);
  if (!patterns.length) return parseStructuredAnswer(text, schema);
  return new Promise<CheckedAnswer>((resolve) => {
    const thread = startThread({ text, schema });
    let settled = false;
    const settle = (result: CheckedAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void thread.terminate();
      resolve(result);
    };
    const timer = setTimeout(() => {
      const shown = patterns
        .slice(0, 3)
        .map((p) => JSON.stringify(p.slice(0, 80)))
        .join(', ');
      settle({
        ok: false,
        stopped: `checking the answer against the schema's patterns (${shown}) took over ${limitMs} ms, so it was stopped: a pattern that backtracks catastrophically (a repeated group inside a repetition, such as (a+)+ or (a|a)+)`,
      });
    }, limitMs);
    thread.once('message', (result: StructuredAnswer) => settle(result));
    thread.once('error', (err) => settle({ ok: false, stopped: `the check of the answer against the schema failed (${err.message})` }));
    thread.once('exit', (code) => settle({ ok: false, stopped: `the check of the answer against the schema ended without a result (exit ${code})` }));
  });
}

/** The thread runs the compiled file; from sources (tests, tsx) it loads the TypeScript through tsx. */
function startThread(workerData: { text: string; schema: ResponseSchema }): Worker {
  const ext = path.extname(__filename);
  const entry = path.join(__dirname, `typed-answer-thread${ext}`);
  // The answer is at most a model's output; the old-generation limit keeps a pathological one from taking the worker's memory.
  const options = { workerData, resourceLimits: { maxOldGenerationSizeMb: 256 } };
  if (ext !== '.ts') return new Worker(entry, options);
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { ...options, eval: true });
}
