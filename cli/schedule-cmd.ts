/** `livecontext schedule …`: input to agents at set times, on Temporal Schedules. */
import type { AgentScheduleSummary } from '../client/agent-schedules';
import { connectAgents } from '../client/connect';
import { UserError } from '../common/user-error';
import type { Values } from './argv';
import { formatTable } from './format';
import { checkModel } from './model-check';
import { terminalJson, terminalText } from './terminal-text';

const USAGE = 'livecontext schedule add <agent-id> (--cron EXPR | --every 1h) --text TEXT [--start-model provider:model] | list [agent-id] [--json] | pause|resume|trigger|delete <schedule-id>';

export async function scheduleCmd(p: string[], v: Values): Promise<void> {
  const [action, target] = p;
  const need = (what: string) => {
    if (!target) throw new UserError(`Missing <${what}>. Usage: ${USAGE}`);
    return target;
  };
  const { agents } = await connectAgents();
  const schedules = agents.schedules;
  switch (action) {
    case 'add': {
      const agentId = need('agent-id');
      const text = typeof v.text === 'string' ? v.text : undefined;
      if (!text) throw new UserError('Missing --text: what the schedule sends each time.');
      const startModel = typeof v['start-model'] === 'string' ? checkModel(v['start-model']) : undefined;
      const s = await schedules.add(agentId, {
        text,
        ...(typeof v.cron === 'string' ? { cron: v.cron } : {}),
        ...(typeof v.every === 'string' ? { every: v.every } : {}),
        ...(startModel ? { startIfMissing: { model: startModel } } : {}),
      });
      if (v.json) console.log(terminalJson(s));
      else console.log(terminalText(`Schedule "${s.scheduleId}" sends "${clip(text)}" to agent "${agentId}" (${s.when}); next: ${s.nextTimes[0] ?? '-'}.`));
      return;
    }
    case 'list': {
      const list = await schedules.list(target);
      if (v.json) console.log(terminalJson(list));
      else console.log(terminalText(table(list)));
      return;
    }
    case 'pause':
      await schedules.pause(need('schedule-id'));
      console.log(terminalText(`Paused schedule "${target}".`));
      return;
    case 'resume':
      await schedules.resume(need('schedule-id'));
      console.log(terminalText(`Resumed schedule "${target}".`));
      return;
    case 'trigger':
      await schedules.trigger(need('schedule-id'));
      console.log(terminalText(`Triggered schedule "${target}" once.`));
      return;
    case 'delete':
      await schedules.delete(need('schedule-id'));
      console.log(terminalText(`Deleted schedule "${target}".`));
      return;
    default:
      throw new UserError(`Unknown schedule action "${action ?? ''}". Usage: ${USAGE}`);
  }
}

function table(list: AgentScheduleSummary[]): string {
  if (!list.length) return '(no schedules)';
  return formatTable([['SCHEDULE', 'AGENT', 'WHEN', 'STATE', 'NEXT', 'TEXT'], ...list.map((s) => [s.scheduleId, s.agentId, s.when, s.paused ? 'paused' : 'active', s.nextTimes[0]?.slice(0, 19).replace('T', ' ') ?? '-', clip(s.text, 40)])]);
}

const clip = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
