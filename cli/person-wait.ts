/**
 * `send --wait` and a turn that waits for a person. A tool call waiting for approval — the agent's own,
 * or a sub-agent's it waits on — stops the turn until someone decides, so the wait would be silent and
 * endless. While the answer is awaited this looks at the agents (a describe per tick, cheap; their
 * state only when their history grew) and reports every such call, so the command can say at once what
 * it waits for and the exact command that answers it, and end (exit status NEEDS_PERSON).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentStatus } from '../agent/index';
import type { AgentClient } from '../client/agent-client';

/** Exit status of `send --wait` when the turn needs a person: an approval, or the agent's question. */
export const NEEDS_PERSON = 3;
/** Exit status of `send --wait --timeout` when no answer came in time (as timeout(1) has it). */
export const TIMED_OUT = 124;

/** A tool call that waits for a person to approve or deny it. */
export interface WaitingApproval {
  agentId: string;
  toolCallId: string;
  toolName: string;
  arguments: string;
  reason: string;
  /** The call's outcome is unknown (its worker died mid-run): it waits for `resolve`, not approval. */
  unknown?: true;
}

const TICK_MS = 500;
/** Sub-agents are looked into this deep (a sub-agent's own sub-agents, and so on). */
const MAX_DEPTH = 4;

/** Resolves with the tool calls that wait for approval once there are any; never rejects (aborted: never resolves). */
export async function untilApprovalNeeded(agents: AgentClient, agentId: string, signal: AbortSignal): Promise<WaitingApproval[]> {
  const known = new Map<string, { mark: string; state: AgentStatus }>();
  /** The agent's state, queried again only when its history grew since. */
  const stateOf = async (id: string): Promise<AgentStatus> => {
    const d = await agents.handle(id).describe();
    const mark = `${d.runId}/${d.historyLength}`;
    const cached = known.get(id);
    if (cached?.mark === mark) return cached.state;
    const state = await agents.state(id);
    known.set(id, { mark, state });
    return state;
  };
  const waiting = async (id: string, depth: number): Promise<WaitingApproval[]> => {
    const state = await stateOf(id);
    const own: WaitingApproval[] = [
      ...state.awaitingApproval.map((a) => ({ agentId: id, toolCallId: a.toolCallId, toolName: a.toolName, arguments: a.arguments, reason: a.reason })),
      ...(state.unknownOutcomes ?? []).map((u) => ({
        agentId: id,
        toolCallId: u.toolCallId,
        toolName: u.toolName,
        arguments: u.arguments,
        reason: u.reason,
        unknown: true as const,
      })),
    ];
    if (depth >= MAX_DEPTH) return own;
    const children = (state.subAgents ?? []).filter((c) => c.status === 'Running' && c.agentId); // '' is a child being started
    const theirs = await Promise.all(children.map((c) => waiting(c.agentId, depth + 1).catch(() => [])));
    return [...own, ...theirs.flat()];
  };
  for (;;) {
    const found = await waiting(agentId, 0).catch(() => []); // unreadable for now: the wait itself says what matters
    if (found.length) return found;
    await sleep(TICK_MS, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return new Promise<never>(() => {});
  }
}

/** What `send --wait` says on stderr when the turn waits for approvals: what, and the commands that answer. */
export function approvalNotice(agentId: string, inputSeq: number, calls: WaitingApproval[]): string[] {
  const lines = calls.flatMap((c) =>
    c.unknown
      ? unknownNotice(agentId, c)
      : [
          `${c.agentId === agentId ? `Agent "${agentId}"` : `Sub-agent "${c.agentId}" (working for "${agentId}")`} waits for a person: tool call ${c.toolName} ${c.arguments} needs approval${c.reason ? ` (${c.reason})` : ''}.`,
          `  approve: ${command('approve', [c.agentId, c.toolCallId])}`,
          `  deny:    ${command('deny', [c.agentId, c.toolCallId], '--reason "…"')}`,
        ],
  );
  return [
    ...lines,
    `The answer to input #${inputSeq} comes after that: \`${command('history', [agentId])}\` shows it, \`${command('chat', [agentId])}\` follows the turn.`,
  ];
}

function unknownNotice(agentId: string, c: WaitingApproval): string[] {
  return [
    `${c.agentId === agentId ? `Agent "${agentId}"` : `Sub-agent "${c.agentId}" (working for "${agentId}")`} waits for a person: whether tool call ${c.toolName} ${c.arguments} had its effect is unknown (${c.reason}).`,
    `  it happened:  ${command('resolve', [c.agentId, c.toolCallId], '--done "…"')}`,
    `  it did not:   ${command('resolve', [c.agentId, c.toolCallId], '--failed "…"')}`,
    `  run it again: ${command('resolve', [c.agentId, c.toolCallId], '--retry')}`,
  ];
}

/** What `send --wait` says on stderr when the agent's turn ended with a question for the person. */
export function questionNotice(agentId: string): string {
  return `Agent "${agentId}" asks you the question above: reply with ${command('send', [agentId], '', '"…"')}`;
}

/**
 * A `livecontext` command line that a shell runs as it reads: `args` (ids) quoted when they need it and
 * after `--` when one starts with `-`; `options` before them and `text` after, as written.
 */
export function command(name: string, args: string[], options = '', text = ''): string {
  const dashes = args.some((a) => a.startsWith('-')) ? ['--'] : [];
  return ['livecontext', name, options, ...dashes, ...args.map(shellWord), text].filter(Boolean).join(' ');
}

const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
