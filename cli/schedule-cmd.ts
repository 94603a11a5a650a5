/** `livecontext schedule …`: input to agents at set times, on Temporal Schedules. */
import type { AgentScheduleSummary } from '../client/agent-schedules';
import { connectAgents } from '../client/connect';
import { UserError } from '../common/user-error';
import type { Values } from './argv';
import { formatTable } from './format';
import { checkModel } from './model-check';
import { terminalJson, terminalText } from './terminal-text';

const USAGE =
  'livecontext schedule add <agent-id> (--cron EXPR | --every 1h) --text TEXT [--start-model provider:model] | list [agent-id] [--json] | describe|pause|resume|trigger|delete <schedule-id>';

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
    case 'describe': {
      const d = await schedules.describe(need('schedule-id'));
      if (v.json) console.log(JSON.stringify(d, null, 2));
      else console.log(describeText(d));
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
  const rows = list.map((s) => [s.scheduleId, s.agentId, s.when, s.paused ? 'paused' : 'active', time(s.nextTimes[0]), delivery(s, 50), clip(s.text, 40)]);
  const failed = list.filter((s) => s.lastDelivery?.status === 'failed').map((s) => s.scheduleId);
  const hint = failed.length
    ? `\n${failed.length} schedule${failed.length > 1 ? 's' : ''} failed to deliver last time: livecontext schedule describe ${failed[0]}`
    : '';
  return formatTable([['SCHEDULE', 'AGENT', 'WHEN', 'STATE', 'NEXT', 'LAST DELIVERY', 'TEXT'], ...rows]) + hint;
}

function describeText(s: AgentScheduleSummary): string {
  return [
    `Schedule "${s.scheduleId}" sends "${clip(s.text)}" to agent "${s.agentId}" (${s.when}); ${s.paused ? `paused${s.note ? ` (${s.note})` : ''}` : 'active'}.`,
    `Next:          ${s.nextTimes.map(time).join(', ') || '-'}`,
    `Last delivery: ${delivery(s)}${s.lastDelivery ? ` (run ${s.lastDelivery.workflowId})` : ''}`,
  ].join('\n');
}

/** How the last scheduled time went, in a few words. */
function delivery(s: AgentScheduleSummary, max = 500): string {
  const d = s.lastDelivery;
  if (!d) return '-';
  const what = d.status === 'failed' ? 'FAILED' : d.status;
  return clip(`${what} ${time(d.scheduledAt)}${d.error ? `: ${d.error}` : ''}`, max);
}

const time = (iso: string | undefined) => iso?.slice(0, 19).replace('T', ' ') ?? '-';

const clip = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
