/**
 * How an agent's run state reads to a person: the one vocabulary of every view — `livecontext state`,
 * `livecontext list`, the chat, the gateway's REST answers (`stateWord`, `stateDetail`), its event
 * stream's state, the MCP tools and the web page — instead of the state machine's names
 * (WaitingInput, PendingToolResults…). In client/ so the CLI and the gateway share it.
 */
import type { AgentStatus } from '../workflows/messages';
import { DEFAULT_COMPACT_AT } from '../agent/index';
import { ledgerIn } from '../activities/tools/tool-retry';
import { type RunStateWord, RunStateWords, runStateWord } from './run-state-words';

export { LISTED_RUNNING, type RunStateWord, RunStateWords, listedRunStateWord, runStateWord } from './run-state-words';

/** What a working agent is doing, from the state machine's state; undefined when it is not working. */
export function workingOn(s: Pick<AgentStatus, 'runState' | 'blockedOn' | 'stopping'>): string | undefined {
  if (runStateWord(s) !== RunStateWords.working) return undefined;
  switch (s.runState) {
    case 'PendingInput':
      return 'calling the model';
    case 'PendingToolResults':
      return 'calling the model with tool results';
    case 'WaitingToolResults':
    case 'ToolResultsReady':
      return 'running tools';
    default:
      return 'taking the next input';
  }
}

/** What a budget code stops (agent/budgets.ts BudgetCode), in words. */
const BUDGET_NAMES: Record<string, string> = {
  'Budget.TurnModelCalls': 'model calls per turn',
  'Budget.TurnTokens': 'tokens per turn',
  'Budget.TurnCost': 'cost per turn',
  'Budget.DayTokens': 'tokens per day (UTC)',
  'Budget.DayCost': 'cost per day (UTC)',
  'Budget.ConsecutiveToolFailures': 'failed tool calls in a row',
};

/**
 * What goes with the word: what a working agent does, which calls wait for approval, which error (or
 * budget) blocks it; undefined when the word says it all.
 */
export function stateDetail(
  s: Pick<AgentStatus, 'runState' | 'blockedOn' | 'stopping' | 'awaitingApproval' | 'lastError' | 'unknownOutcomes'>,
): string | undefined {
  const word = runStateWord(s);
  if (word === RunStateWords.working) return workingOn(s);
  if (word === RunStateWords.waitingApproval) {
    const names = [...new Set(s.awaitingApproval.map((a) => a.toolName))];
    return names.length ? names.join(', ') : undefined;
  }
  if (word === RunStateWords.waitingResolution) {
    const names = [...new Set((s.unknownOutcomes ?? []).map((u) => u.toolName))];
    return names.length ? `the outcome of ${names.join(', ')} is unknown` : undefined;
  }
  if (word === RunStateWords.blockedByError && s.lastError) {
    const budget = s.lastError.code.startsWith('Budget.') ? (BUDGET_NAMES[s.lastError.code] ?? s.lastError.code.slice('Budget.'.length)) : undefined;
    return budget ? `its budget of ${budget}` : s.lastError.code;
  }
  return undefined;
}

/** The word and its detail, as the gateway's answers carry them (`stateWord`, `stateDetail`: null when none). */
export function stateWords(s: Pick<AgentStatus, 'runState' | 'blockedOn' | 'stopping' | 'awaitingApproval' | 'lastError' | 'unknownOutcomes'>): {
  stateWord: RunStateWord;
  stateDetail: string | null;
} {
  return { stateWord: runStateWord(s), stateDetail: stateDetail(s) ?? null };
}

/** An agent's status with its words, as the gateway answers it (GET /agents/:id, approve, deny, configure). */
export function withStateWords<S extends Pick<AgentStatus, 'runState' | 'blockedOn' | 'stopping' | 'awaitingApproval' | 'lastError' | 'unknownOutcomes'>>(
  s: S,
): S & ReturnType<typeof stateWords> {
  return { ...s, ...stateWords(s) };
}

const clip = (text: string, max: number) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/** The policy in a line, e.g. `context: compact at 0.8 (summaries by anthropic:claude-haiku-4-5), cache TTL 1h`. */
export function describeContext(c: AgentStatus['config']['context']): string {
  if (c?.policy === 'trim') return 'context: trim (the oldest turns are left out when the window fills)';
  const by = c?.compactionModel ? ` (summaries by ${c.compactionModel})` : '';
  return `context: compact at ${c?.compactAt ?? DEFAULT_COMPACT_AT}${by}${c?.cacheTtl ? `, cache TTL ${c.cacheTtl}` : ''}`;
}

/** The prompt cache's share of the input, e.g. `, 83% cache hits`; nothing before any input token. */
function cacheHit(usage: AgentStatus['usage']): string {
  return usage.inputTokens > 0 ? `, ${Math.round((usage.cachedInputTokens / usage.inputTokens) * 100)}% cache hits` : '';
}

/** The readable view of `livecontext state` and the chat's `/state`. */
/**
 * A running call that has failed before (its heartbeat details hold the attempts, see
 * activities/tools/tool-retry.ts) as one line, or undefined for other details.
 */
export function describeRetrying(details: unknown): string | undefined {
  const ledger = ledgerIn(details);
  if (!ledger || !ledger.errors.length) return undefined;
  const d = details as { tool_call_id?: unknown; tool?: unknown };
  const last = ledger.errors[ledger.errors.length - 1];
  const call = typeof d.tool_call_id === 'string' ? `${d.tool_call_id} ` : '';
  const tool = typeof d.tool === 'string' ? d.tool : 'a tool';
  const now = ledger.started > last.attempt ? `attempt ${ledger.started} running` : `waiting for attempt ${ledger.started + 1}`;
  return `retrying tool call: ${call}${tool}, ${now} (${ledger.errors.length} failed; last, attempt ${last.attempt}: ${clip(last.error, 120)})`;
}

/** `running`: the running tools' heartbeat details (AgentClient.toolProgress), for the calls being retried. */
export function describeState(
  agentId: string,
  s: AgentStatus,
  children: Record<string, string> = {},
  running: unknown[] = [],
  forks: ReadonlyArray<{ agentId: string; forkedFrom: { seq: number } | null }> = [],
): string {
  const doing = workingOn(s);
  const { usage } = s;
  const cost = usage.costUsd ? `, $${usage.costUsd.toFixed(4)}` : '';
  return [
    `agent ${agentId}: ${runStateWord(s)}${doing ? ` (${doing})` : ''}`,
    `model ${s.config.model}${s.config.executorModel ? `, after tool results ${s.config.executorModel}` : ''}`,
    `system instruction ${s.systemInstruction ? `"${clip(s.systemInstruction, 100)}"` : '(none)'}`,
    ...(s.config.context ? [describeContext(s.config.context)] : []),
    `history ${s.entryCount} entries, ${s.inboxLength} input${s.inboxLength === 1 ? '' : 's'} queued`,
    `usage ${usage.modelCalls} model calls, ${usage.inputTokens} in / ${usage.outputTokens} out tokens (${usage.cachedInputTokens} cached${cacheHit(usage)})${cost}`,
    ...(s.lastError ? [`error ${s.lastError.code}: ${clip(s.lastError.message, 300)}`] : []),
    ...(s.warning ? [`warning: ${s.warning}`] : []),
    ...s.awaitingApproval.map((a) => `waiting for approval: ${a.toolCallId} ${a.toolName} ${clip(a.arguments, 100)} (${a.reason})`),
    ...(s.unknownOutcomes ?? []).map(
      (u) =>
        `outcome unknown: ${u.toolCallId} ${u.toolName} ${clip(u.arguments, 100)} (${clip(u.reason, 200)}); livecontext resolve ${agentId} ${u.toolCallId} --done TEXT | --failed TEXT | --retry`,
    ),
    ...(s.waits ?? [])
      .filter((w) => w.kind === 'elicitation')
      .map(
        (w) =>
          `${w.server ?? 'an MCP server'} asks (call ${w.toolCallId} ${w.toolName}): "${clip(w.question ?? '', 200)}"; livecontext answer ${agentId} ${w.waitId} --accept JSON | --decline | --cancel`,
      ),
    ...s.pendingToolCalls.map((c) => `pending tool call: ${c.toolCallId} ${c.toolName}`),
    ...running.flatMap((d) => describeRetrying(d) ?? []),
    ...(s.config.forkedFrom ? [`forked from ${s.config.forkedFrom.agentId} at #${s.config.forkedFrom.seq} (run ${s.config.forkedFrom.runId})`] : []),
    ...forks.map((f) => `  ↳ fork ${f.agentId}${f.forkedFrom ? ` at #${f.forkedFrom.seq}` : ''}`),
    ...(s.delegatedBy ? [`sub-agent of ${s.delegatedBy.agentId} (call ${s.delegatedBy.toolCallId}, depth ${s.delegatedBy.depth})`] : []),
    ...(s.subAgents ?? []).map((c) =>
      // A child being started has no id yet (the parent records the call first).
      !c.agentId
        ? `  └ sub-agent (${c.profile}, call ${c.toolCallId}): starting`
        : `  └ sub-agent ${c.agentId} (${c.profile}, call ${c.toolCallId}): ${c.status === 'Running' ? 'working on its task' : c.status === 'Success' ? 'answered' : 'failed'}${children[c.agentId] ? `; ${children[c.agentId]}` : ''}`,
    ),
    ...(s.mcpTools?.length ? [`MCP tools ${s.mcpTools.length}: ${clip(s.mcpTools.join(', '), 300)}`] : []),
    ...((s.tasks ?? []).length ? [`tasks ${s.tasks.filter((t) => t.status === 'done').length} of ${s.tasks.length} done`] : []),
    ...(s.tasks ?? []).map(
      (t) => `  ${t.status === 'done' ? '[x]' : t.status === 'in_progress' ? '[~]' : t.status === 'cancelled' ? '[-]' : '[ ]'} ${t.id}. ${clip(t.title, 100)}`,
    ),
  ].join('\n');
}
