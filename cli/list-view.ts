/** What `livecontext list` prints, from AgentClient.list or the quick read alike. */
import type { AgentSummary } from '../client/agent-list';
import type { Values } from './argv';
import { formatTable } from './table';
import { terminalJson, terminalText } from './terminal-text';

export function printList(v: Values, list: AgentSummary[]): void {
  if (v.json) return console.log(terminalJson(list));
  if (!list.length) return console.log(terminalText(v.all ? '(no agents)' : '(no running agents; --all lists ended ones too)'));
  // One row per run: with --all, the runs an agent continued from are marked as such.
  console.log(
    terminalText(
      formatTable([
        ['AGENT', 'STATE', 'MODEL', 'STARTED'],
        ...list.map((a) => [a.agentId, a.stateWord, a.model ?? '-', a.startTime.slice(0, 19).replace('T', ' ')]),
      ]),
    ),
  );
}
