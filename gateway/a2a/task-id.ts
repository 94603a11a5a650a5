/**
 * An A2A task is one turn of an agent: the input that started it. Its id names the agent and the input's
 * number, so the gateway keeps nothing: any gateway, after any restart, reads the task from the agent.
 */
export interface TurnRef {
  agentId: string;
  inputSeq: number;
}

export const taskIdOf = (ref: TurnRef): string => `turn-${ref.inputSeq}@${ref.agentId}`;

/** The turn a task id names, or null for an id this gateway did not make. */
export function turnOf(taskId: string): TurnRef | null {
  const m = /^turn-([1-9]\d{0,15})@(.+)$/s.exec(taskId);
  return m ? { agentId: m[2], inputSeq: Number(m[1]) } : null;
}
