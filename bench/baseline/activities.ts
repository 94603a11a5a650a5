/** The baseline's activities: stand-ins for a model call and a tool run, with tiny fixed payloads. */
import { setTimeout as sleep } from 'node:timers/promises';

export async function fakeModel(): Promise<string> {
  return 'ok';
}

/** `ms`: the recovery benchmark's slow tool (bench/slow-tool.ts), which says on stdout when it starts. */
export async function fakeTool(ms?: number): Promise<string> {
  if (ms) {
    process.stdout.write('TOOL STARTED\n');
    await sleep(Number(process.env.BENCH_SLOW_TOOL_MS ?? ms)); // as bench/slow-tool.ts
  }
  return 'done';
}
