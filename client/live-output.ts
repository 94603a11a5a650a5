/**
 * What an agent is doing right now, read outside its history: the partial output of the model call that
 * runs and the running tools' progress, both from the activities' heartbeat details.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { createActivities } from '../activities/index';
import type { PartialOutput } from '../activities/call-model';
import { sharedStreamReader } from '../common/stream-channel/channel-reader';
import { decodePayloadAt } from './decode-payload';

/**
 * The partial output of the model call running now (text, thinking, tool calls being formed), or
 * null when none runs. The call's heartbeat details (never workflow history) say which call runs and
 * where it streams; the text is the worker's stream endpoint's when this process follows it
 * (common/stream-channel: following starts at the first look, so ask repeatedly), else the heartbeat's.
 * A retried call starts again from empty.
 */
export async function partialOutput(client: Client, agentId: string): Promise<PartialOutput | null> {
  return partialOutputOf(client, await client.workflow.getHandle(agentId).describe());
}

/** partialOutput from a description of the agent's workflow the caller already has (one round trip fewer). */
export async function partialOutputOf(client: Client, desc: WorkflowExecutionDescription): Promise<PartialOutput | null> {
  const pending = desc.raw.pendingActivities?.find((a) => a.activityType?.name === ('callModel' satisfies keyof ReturnType<typeof createActivities>));
  const payloads = pending?.heartbeatDetails?.payloads;
  if (!pending || !payloads?.length) return null;
  const partial = await decodePayloadAt<PartialOutput>(client.workflow.options.loadedDataConverter, 0, payloads);
  if (partial.attempt !== pending.attempt)
    return { ...partial, attempt: pending.attempt ?? partial.attempt, text: '', textChars: 0, thinking: '', toolCalls: [] };
  return sharedStreamReader.latest(partial);
}

/**
 * What the running tools last reported (their heartbeat details, e.g. an MCP tool's progress
 * `{ tool_call_id, tool, progress, total, message }`), one entry per running tool that reported any.
 * Like partialOutput, never from history.
 */
export async function toolProgress(client: Client, agentId: string): Promise<Array<{ activityId: string; attempt: number; details: unknown }>> {
  const desc = await client.workflow.getHandle(agentId).describe();
  const running = (desc.raw.pendingActivities ?? []).filter(
    (a) => a.activityType?.name === ('executeTool' satisfies keyof ReturnType<typeof createActivities>),
  );
  const reported = running.filter((a) => a.heartbeatDetails?.payloads?.length);
  const converter = client.workflow.options.loadedDataConverter;
  const all = await Promise.all(
    reported.map(async (a) => ({
      activityId: a.activityId ?? '',
      attempt: a.attempt ?? 1,
      details: await decodePayloadAt<unknown>(converter, 0, a.heartbeatDetails!.payloads!),
    })),
  );
  return all.filter((p) => p.details !== undefined && p.details !== null);
}

/** Calls `read` every `intervalMs` and yields each change, until `signal` aborts. */
export async function* pollChanges(
  read: () => Promise<PartialOutput | null>,
  options: { intervalMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<PartialOutput> {
  let last = '';
  while (!options.signal?.aborted) {
    const partial = await read().catch(() => null);
    const key = partial ? JSON.stringify(partial) : '';
    if (partial && key !== last) yield partial;
    last = key;
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 200));
  }
}
