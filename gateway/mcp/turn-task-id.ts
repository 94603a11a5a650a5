/**
 * An MCP task id for `send_message` that *is* the agent's turn: the agent, the input number and when the
 * task was made. Nothing is kept in the gateway, so any gateway (a restarted one, another replica)
 * answers `tasks/get`, `tasks/result` and `tasks/cancel` for it from the agent's own state.
 */

/** What a turn task id names. */
export interface TurnTaskRef {
  agentId: string;
  inputSeq: number;
  /** When the task was made (ms since the epoch): its `createdAt`. */
  createdMs: number;
}

const PREFIX = 'lc-turn';

/** `lc-turn.<inputSeq>.<createdMs>.<agentId>`: the agent id last, since it may hold any character. */
export function turnTaskId(ref: TurnTaskRef): string {
  return `${PREFIX}.${ref.inputSeq}.${ref.createdMs}.${ref.agentId}`;
}

/** The turn a task id names, or undefined for an id this gateway never made. */
export function parseTurnTaskId(taskId: string): TurnTaskRef | undefined {
  const m = /^lc-turn\.([1-9]\d{0,15})\.(\d{1,16})\.(.+)$/s.exec(taskId);
  if (!m) return undefined;
  const ref = { inputSeq: Number(m[1]), createdMs: Number(m[2]), agentId: m[3] };
  return Number.isSafeInteger(ref.inputSeq) && Number.isSafeInteger(ref.createdMs) ? ref : undefined;
}
