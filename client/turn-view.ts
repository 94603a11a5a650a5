/**
 * Watches one turn of an agent for the console chat: model output streamed as it forms (from the model
 * activity's heartbeat), tool calls and results as they are recorded, approval requests as they come.
 */
import type { HistoryEntry, TurnOutcome } from '../agent';
import { type AgentClient, outcomeText } from './agent-client';
import { formatProgress } from './format';

const POLL_MS = 200;

export async function watchTurn(agents: AgentClient, agentId: string, inputSeq: number, write: (text: string) => void): Promise<TurnOutcome> {
  let done = false;
  let streamed = ''; // text of the current model call already written
  let attempt = 0;
  let afterSeq: number | undefined; // history already shown
  const shownApprovals = new Set<string>();
  const answer = agents.waitForAnswer(agentId, inputSeq).finally(() => (done = true));

  const poll = async () => {
    const [partial, state] = await Promise.all([agents.partialOutput(agentId).catch(() => null), agents.state(agentId).catch(() => null)]);
    if (afterSeq === undefined && state && state.consumedInputSeq >= inputSeq) afterSeq = await inputEntrySeq(agents, agentId, inputSeq);
    if (afterSeq !== undefined) {
      const fresh = await agents.history(agentId, afterSeq).catch(() => [] as HistoryEntry[]);
      const progress = fresh.filter((e) => e.kind === 'tool_results' || (e.kind === 'model_output' && e.toolCalls.length > 0));
      if (progress.length && fresh.length) {
        if (streamed) write('\n');
        streamed = '';
        for (const line of formatProgress(fresh)) write(`${line}\n`);
      }
      if (fresh.length && fresh.every((e) => e.kind !== 'model_output' || e.toolCalls.length > 0)) afterSeq = fresh[fresh.length - 1].seq;
    }
    if (partial && partial.text) {
      if (partial.attempt !== attempt || !partial.text.startsWith(streamed)) {
        if (streamed) write(' … (retrying)\n');
        streamed = '';
        attempt = partial.attempt;
      }
      if (!streamed) write('agent> ');
      write(partial.text.slice(streamed.length));
      streamed = partial.text;
    }
    for (const a of state?.awaitingApproval ?? []) {
      if (shownApprovals.has(a.toolCallId)) continue;
      shownApprovals.add(a.toolCallId);
      write(`${streamed ? '\n' : ''}  ? ${a.toolName} ${a.arguments} needs approval (${a.reason}): /approve ${a.toolCallId} or /deny ${a.toolCallId} [reason]\n`);
      streamed = '';
    }
  };

  while (!done) {
    await Promise.race([poll(), answer.catch(() => undefined)]);
    if (!done) await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const outcome = await answer;
  const final = outcomeText(outcome);
  if (streamed && final.startsWith(streamed)) write(`${final.slice(streamed.length)}\n`);
  else write(`${streamed ? '\n' : ''}agent> ${final}\n`);
  return outcome;
}

async function inputEntrySeq(agents: AgentClient, agentId: string, inputSeq: number): Promise<number | undefined> {
  const entries = await agents.history(agentId).catch(() => [] as HistoryEntry[]);
  return entries.find((e) => e.kind === 'model_input' && e.inputSeq === inputSeq)?.seq;
}
