/**
 * The effect ledger: for each call of the current batch that runs outside the workflow (an activity tool),
 * when the agent started it and how it ended — succeeded, failed, or unknown (an earlier attempt started
 * and never reported, and the tool could neither reconcile nor safely run again). A call whose outcome is
 * unknown holds the batch, as a call waiting for approval does, until a person or a service resolves it:
 * done (a Success result with their text), failed (a Failed result), or retry (the call runs again, as a
 * fresh activity: they decided it is safe). The effect's key is `agentId/toolCallId`, the tool's
 * idempotency key. Results of calls that were unknown say so in their metadata, for good.
 *
 * @example
 * const ledger: Record<string, EffectRecord> = {};
 * startEffect(ledger, 'call_1', '2026-01-01T00:00:00.000Z');
 * markUnknown(ledger, 'call_1', 'attempt 1 never reported', '2026-01-01T00:00:09.000Z');
 * const r = resolveEffect(ledger, call, { toolCallId: 'call_1', done: 'charged once' }, '2026-01-01T00:01:00.000Z');
 */
import { z } from 'zod';
import type { ToolCallRequest, ToolCallResult } from './entries';
import { InputRejectedError } from './errors';
import { Door } from './tool-decision';
import { undecodableReason } from './undecodable';

/** The patch id of the wait on an unknown outcome (and of its resolution), asked when a call's outcome is found unknown. */
export const UNKNOWN_OUTCOME_CHANGE = 'tool-outcome-unknown';

export const EffectOutcome = z.enum(['running', 'succeeded', 'failed', 'unknown']);
export type EffectOutcome = z.infer<typeof EffectOutcome>;

/** How a person or a service resolved an unknown outcome. */
export const EffectResolution = z.object({ how: z.enum(['done', 'failed', 'retry']), by: z.string().optional(), door: z.string().optional(), at: z.string() });
export type EffectResolution = z.infer<typeof EffectResolution>;

export const EffectRecord = z.object({
  /** When the agent started the call (its latest run, after a retry). */
  startedAt: z.string(),
  outcome: EffectOutcome,
  endedAt: z.string().optional(),
  /** Why the outcome is unknown (kept after it is resolved). */
  reason: z.string().optional(),
  resolution: EffectResolution.optional(),
});
export type EffectRecord = z.infer<typeof EffectRecord>;

/** A resolution as the `resolveToolCall` update carries it. */
export const ToolCallResolution = z.union([
  z.object({ toolCallId: z.string().min(1), done: z.string().max(65536), by: z.string().max(200).optional(), door: Door.optional() }).strict(),
  z.object({ toolCallId: z.string().min(1), failed: z.string().max(65536), by: z.string().max(200).optional(), door: Door.optional() }).strict(),
  z.object({ toolCallId: z.string().min(1), retry: z.literal(true), by: z.string().max(200).optional(), door: Door.optional() }).strict(),
]);
export type ToolCallResolution = z.infer<typeof ToolCallResolution>;

/** Validates a resolution's shape; throws InputRejectedError saying what one looks like. */
export function parseToolCallResolution(raw: unknown): ToolCallResolution {
  const undecodable = undecodableReason(raw);
  if (undecodable !== undefined) throw new InputRejectedError('UNDECODABLE_INPUT', `The resolution's payload could not be decoded (${undecodable}).`);
  const parsed = ToolCallResolution.safeParse(raw);
  if (!parsed.success) {
    throw new InputRejectedError(
      'BAD_RESOLUTION',
      'A resolution is {"toolCallId": "...", "done": "what happened"} or {"toolCallId": "...", "failed": "why"} or {"toolCallId": "...", "retry": true}, with an optional "by".',
    );
  }
  return parsed.data;
}

/** The effect's key (the tool's idempotency key): the agent's id and the call's. */
export function effectKey(agentId: string, toolCallId: string): string {
  return `${agentId}/${toolCallId}`;
}

export function startEffect(ledger: Record<string, EffectRecord>, toolCallId: string, at: string): void {
  const before = ledger[toolCallId];
  // A retried call keeps who decided it (its result says so) and why it was unknown.
  ledger[toolCallId] = {
    startedAt: at,
    outcome: 'running',
    ...(before?.reason ? { reason: before.reason } : {}),
    ...(before?.resolution ? { resolution: before.resolution } : {}),
  };
}

export function endEffect(ledger: Record<string, EffectRecord>, result: ToolCallResult, at: string): void {
  const before = ledger[result.toolCallId];
  if (!before) return;
  ledger[result.toolCallId] = { ...before, outcome: result.status === 'Success' ? 'succeeded' : 'failed', endedAt: at };
}

export function markUnknown(ledger: Record<string, EffectRecord>, toolCallId: string, reason: string, at: string): void {
  const before = ledger[toolCallId] ?? { startedAt: at };
  const { resolution: _earlier, ...rest } = before as EffectRecord;
  ledger[toolCallId] = { ...rest, outcome: 'unknown', reason: reason.slice(0, 1000), endedAt: at };
}

/** The result metadata of a call that was run again after a retry resolution. */
export function retryMetadata(record: EffectRecord | undefined): Record<string, string> | undefined {
  if (record?.resolution?.how !== 'retry') return undefined;
  return {
    outcome_was_unknown: (record.reason ?? '').slice(0, 300),
    resolved: 'retry',
    ...(record.resolution.by ? { resolved_by: record.resolution.by } : {}),
    resolved_at: record.resolution.at,
  };
}

/**
 * Checks that `resolution` may apply: the call is one of the batch and its outcome unknown. A second
 * resolution of the same call is refused saying how it was resolved.
 */
export function checkResolution(ledger: Readonly<Record<string, EffectRecord>>, pending: readonly ToolCallRequest[], raw: unknown): ToolCallResolution {
  const r = parseToolCallResolution(raw);
  const record = ledger[r.toolCallId];
  if (record?.resolution) {
    const who = [record.resolution.door, record.resolution.by].filter(Boolean).join(' / ');
    throw new InputRejectedError(
      'ALREADY_RESOLVED',
      `Tool call ${r.toolCallId} was already resolved (${record.resolution.how}${who ? ` by ${who}` : ''} at ${record.resolution.at}); this answer changes nothing.`,
    );
  }
  if (!pending.some((c) => c.toolCallId === r.toolCallId)) throw new InputRejectedError('UNKNOWN_TOOL_CALL', `No pending tool call ${r.toolCallId}.`);
  if (record?.outcome !== 'unknown') {
    throw new InputRejectedError(
      'OUTCOME_NOT_UNKNOWN',
      `Tool call ${r.toolCallId}'s outcome is not unknown (${record?.outcome ?? 'not started'}): only such a call is resolved.`,
    );
  }
  return r;
}

/**
 * Applies a checked resolution: done/failed give the call's result (returned, for the pending results);
 * retry leaves the call to run again.
 */
export function resolveEffect(ledger: Record<string, EffectRecord>, call: ToolCallRequest, r: ToolCallResolution, at: string): ToolCallResult | undefined {
  const record = ledger[call.toolCallId];
  const how = 'done' in r ? 'done' : 'failed' in r ? 'failed' : 'retry';
  const resolution: EffectResolution = { how, at, ...(r.by !== undefined ? { by: r.by } : {}), ...(r.door !== undefined ? { door: r.door } : {}) };
  if (how === 'retry') {
    ledger[call.toolCallId] = { ...record, resolution };
    return undefined;
  }
  ledger[call.toolCallId] = { ...record, outcome: how === 'done' ? 'succeeded' : 'failed', resolution };
  const text = 'done' in r ? r.done : 'failed' in r ? r.failed : '';
  const by = r.by ? ` by ${r.by}` : '';
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    status: how === 'done' ? 'Success' : 'Failed',
    result: how === 'done' ? text : `The call's outcome was unknown; resolved as failed${by}: ${text}`,
    metadata: {
      outcome_was_unknown: (record.reason ?? '').slice(0, 300),
      resolved: how,
      ...(r.by ? { resolved_by: r.by } : {}),
      ...(r.door ? { resolved_door: r.door } : {}),
      resolved_at: at,
    },
  };
}

/** Calls whose outcome is unknown now, in call order, as `state` lists them. */
export function unknownCalls(
  ledger: Readonly<Record<string, EffectRecord>>,
  pending: readonly ToolCallRequest[],
): Array<{ toolCallId: string; toolName: string; arguments: string; reason: string; startedAt: string; since: string }> {
  return pending.flatMap((c) => {
    const e = ledger[c.toolCallId];
    return e?.outcome === 'unknown' && !e.resolution
      ? [
          {
            toolCallId: c.toolCallId,
            toolName: c.toolName,
            arguments: c.rawArguments,
            reason: e.reason ?? '',
            startedAt: e.startedAt,
            since: e.endedAt ?? e.startedAt,
          },
        ]
      : [];
  });
}
