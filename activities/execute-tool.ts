/**
 * The executeTool activity. Every failure the model can fix (unknown tool, arguments that do not parse
 * or validate, a thrown error) comes back as a Failed result saying what to fix; only infrastructure
 * failures (this worker dying) are activity failures, retried by Temporal.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import type { ToolCallResult } from '../agent';
import type { ToolOutput } from './tools/define-tool';
import type { ToolRegistry } from './tools/registry';
import type { ExecuteToolInput } from './types';

/** Tool output the model sees is capped; the rest is cut with a marker stating the full size. */
export const TOOL_OUTPUT_MAX_CHARS = 64 * 1024;
const HEARTBEAT_EVERY_MS = 1000;

export interface ExecuteToolDeps {
  tools: ToolRegistry;
  /** Parent of all agent workspaces; each agent works in `<root>/<agentId>`. */
  workspaceRoot: string;
}

export function createExecuteTool(deps: ExecuteToolDeps) {
  return async function executeTool(input: ExecuteToolInput): Promise<ToolCallResult> {
    const { call } = input;
    const started = Date.now();
    const done = (status: ToolCallResult['status'], result: string, metadata?: ToolCallResult['metadata']) => {
      const r: ToolCallResult = { toolCallId: call.toolCallId, toolName: call.toolName, status, result, elapsedMs: Date.now() - started };
      if (metadata) r.metadata = metadata;
      return r;
    };

    const tool = deps.tools.get(call.toolName);
    const allowed = !input.allowedTools || input.allowedTools.includes(call.toolName);
    if (!tool || !allowed) {
      const names = deps.tools.names().filter((n) => !input.allowedTools || input.allowedTools.includes(n));
      return done('Failed', `Unknown tool "${call.toolName}". Available tools: ${names.join(', ') || '(none)'}.`);
    }
    if (call.parseError !== undefined || call.arguments === undefined) {
      return done('Failed', `The arguments of ${call.toolName} are not a JSON object (${call.parseError ?? 'missing'}). Call it again with a JSON object.`);
    }
    const parsed = tool.parameters.safeParse(call.arguments);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
      return done('Failed', `Invalid arguments for ${call.toolName}: ${issues}. Fix them and call it again.`);
    }

    const ctx = Context.current();
    const workspaceRoot = path.join(deps.workspaceRoot, safeFolderName(input.agentId));
    await mkdir(workspaceRoot, { recursive: true });
    // Heartbeat while the tool runs so a dead worker is noticed within the heartbeat timeout.
    const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      const output: ToolOutput = await tool.execute(parsed.data, {
        agentId: input.agentId,
        toolCallId: call.toolCallId,
        idempotencyKey: input.idempotencyKey,
        workspaceRoot,
        signal: ctx.cancellationSignal,
        heartbeat: (details) => ctx.heartbeat(details),
      });
      const text = typeof output === 'string' ? output : output.text;
      return done('Success', capOutput(text), typeof output === 'string' ? undefined : output.metadata);
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw err; // cancellation is Temporal's business, not a tool result
      return done('Failed', `${call.toolName} failed: ${(err as Error)?.message ?? String(err)}`);
    } finally {
      clearInterval(beat);
    }
  };
}

export function capOutput(text: string): string {
  if (text.length <= TOOL_OUTPUT_MAX_CHARS) return text;
  return `${text.slice(0, TOOL_OUTPUT_MAX_CHARS)}\n[output truncated: ${text.length} characters in all, ${TOOL_OUTPUT_MAX_CHARS} shown]`;
}

/** Agent ids become folder names; anything outside [A-Za-z0-9._-] is replaced. */
export function safeFolderName(agentId: string): string {
  const name = agentId.replace(/[^A-Za-z0-9._-]/g, '_');
  return name === '.' || name === '..' ? `_${name}` : name;
}
