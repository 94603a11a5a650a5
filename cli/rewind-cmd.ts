/** `livecontext rewind AGENT --to SEQ`: the agent goes back to an earlier entry (issue 30, time travel). */
import { UserError, connectAgents } from '../client/connect';
import type { Values } from './argv';
import { terminalJson, terminalText } from './terminal-text';

export async function rewindCmd(agentId: string, v: Values) {
  const to = typeof v.to === 'string' ? v.to : undefined;
  if (to === undefined) throw new UserError('Give the entry to go back to: --to SEQ (a turn end or an input; `livecontext history` numbers them).');
  const toSeq = Number(to);
  if (!to.trim() || !Number.isInteger(toSeq)) throw new UserError(`--to takes an entry number, not "${to}".`);
  const reason = typeof v.reason === 'string' ? v.reason : undefined;
  const { agents } = await connectAgents();
  const r = await agents.rewind(agentId, toSeq, { by: process.env.USER ? `${process.env.USER} (cli)` : 'cli', ...(reason !== undefined ? { reason } : {}) });
  if (v.json) return console.log(terminalJson(r));
  const next = r.runState === 'PendingInput' ? `the turn of input #${toSeq} runs again` : 'it waits for input';
  console.log(
    terminalText(
      `Rewound agent "${agentId}" to #${toSeq} (rewind entry #${r.seq}; ${r.rewound} entr${r.rewound === 1 ? 'y' : 'ies'} no longer in force, still in \`history --all\`); ${next}.`,
    ),
  );
}
