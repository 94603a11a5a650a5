/**
 * A tool that takes a while, for the recovery benchmark's mid-tool SIGKILL: it prints TOOL_STARTED on
 * the worker process's stdout when its body starts and sleeps SLOW_TOOL_MS, or BENCH_SLOW_TOOL_MS when
 * the process has it (the process to be killed holds the call until then). Marked idempotent, so the
 * call simply runs again on the new worker.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { ScriptedModelProvider, defineTool, type ScriptedRequest, type ScriptStep } from '../activities/index';
import { unwrap } from '../agent/index';

export const SLOW_TOOL_MS = 1000;
export const TOOL_STARTED = 'TOOL STARTED';
/** This process's tool duration. */
export const slowToolMs = (ms = SLOW_TOOL_MS) => Number(process.env.BENCH_SLOW_TOOL_MS ?? ms);

export const slowTool = defineTool({
  name: 'bench_slow',
  description: 'Take a second, then answer.',
  parameters: z.object({ text: z.string() }),
  idempotent: true,
  async execute({ text }) {
    process.stdout.write(`${TOOL_STARTED}\n`);
    await sleep(slowToolMs());
    return `slow: ${text}`;
  },
});

/** `slowtool:call`: on input, one bench_slow call; after its result, a one-word answer (2 model calls, 1 tool per turn). */
export function slowToolModels(): ScriptedModelProvider {
  return new ScriptedModelProvider(
    {
      call: (req: ScriptedRequest): ScriptStep =>
        unwrap(req.messages[req.messages.length - 1]).kind === 'model_input'
          ? { toolCalls: [{ name: slowTool.name, args: { text: `turn ${req.step}` } }] }
          : { text: `ok ${req.step}` },
    },
    'slowtool',
  );
}
