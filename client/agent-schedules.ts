/**
 * Schedules that feed agents, on Temporal Schedules: they live in the Temporal cluster, survive every
 * process, and show in the Web UI. Each time, the schedule starts scheduledInputWorkflow, which delivers
 * one input (idempotent per scheduled time) to the agent, and may start the agent when none runs.
 *
 * A schedule for an agent that is not running is refused unless it may start the agent (every delivery
 * would fail), and each summary says how the last delivery went (`lastDelivery`), so a schedule whose
 * agent has stopped since does not fail unseen.
 */
import {
  type Client,
  type ScheduleDescription,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type ScheduleSummary,
  WorkflowFailedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { InputRejectedError, NewAgentConfig, checkAgentId } from '../agent/index';
import { SCHEDULED_INPUT_WORKFLOW_TYPE, type ScheduledInput } from '../workflows/messages';
import type { StartAgentOptions } from './agent-start';

export interface AddScheduleOptions {
  /** A cron expression (`0 9 * * 1-5`, UTC unless it names a zone: `CRON_TZ=Europe/Paris 0 9 * * *`). */
  cron?: string;
  /** An interval such as `1h`, `15m`, `30s`, `1d`. */
  every?: string;
  text: string;
  sender?: string;
  /** Start the agent with this configuration when none with its id is running at a scheduled time. */
  startIfMissing?: StartAgentOptions;
  /** Default `<agent-id>-<random>`. */
  scheduleId?: string;
  /** A note shown with the schedule. */
  note?: string;
}

export interface AgentScheduleSummary {
  scheduleId: string;
  agentId: string;
  text: string;
  /** `cron <expression>` or `every <interval>`, as it was added. */
  when: string;
  paused: boolean;
  note: string | null;
  nextTimes: string[];
  recentTimes: string[];
  /** How the most recent scheduled time went (null before the first). */
  lastDelivery: ScheduleDelivery | null;
}

/** One scheduled time's delivery: its scheduledInputWorkflow run. */
export interface ScheduleDelivery {
  scheduledAt: string;
  /** `delivering` while it runs (it retries while no worker answers, `error` says the last attempt's failure). */
  status: 'delivered' | 'delivering' | 'failed';
  /** Why it failed, or why its last attempt failed. */
  error?: string;
  /** The run's workflow id (Web UI, `temporal workflow show`). */
  workflowId: string;
}

const AGENT_MEMO = 'livecontextAgentId';
const TEXT_MEMO = 'livecontextText';
const WHEN_MEMO = 'livecontextWhen';

export class AgentSchedules {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  async add(agentId: string, options: AddScheduleOptions): Promise<AgentScheduleSummary> {
    if (!options.cron === !options.every) throw new InputRejectedError('BAD_SCHEDULE', 'Give exactly one of a cron expression or an interval (every).');
    if (!options.text.trim()) throw new InputRejectedError('BAD_SCHEDULE', 'A schedule needs the text it sends.');
    const every = options.every ? parseInterval(options.every) : undefined;
    if (!options.startIfMissing) await this.requireRunning(agentId);
    const input: ScheduledInput = { agentId, text: options.text, ...(options.sender ? { sender: options.sender } : {}) };
    if (options.startIfMissing) {
      checkAgentId(agentId); // the schedule may start it
      const { systemInstruction, ...raw } = options.startIfMissing;
      const parsed = NewAgentConfig.safeParse(raw);
      if (!parsed.success)
        throw new InputRejectedError('BAD_CONFIG', parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; '));
      input.startIfMissing = { config: parsed.data, ...(systemInstruction ? { systemInstruction } : {}) };
    }
    const scheduleId = options.scheduleId ?? `${agentId.slice(0, 100)}-${Math.random().toString(36).slice(2, 8)}`;
    await this.client.schedule.create({
      scheduleId,
      spec: options.cron ? { cronExpressions: [options.cron] } : { intervals: [{ every: every! }] },
      action: { type: 'startWorkflow', workflowType: SCHEDULED_INPUT_WORKFLOW_TYPE, taskQueue: this.taskQueue, args: [input], workflowId: scheduleId },
      // A time missed while the cluster was down is delivered when it is back (within a day), never twice.
      policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: '1 day' },
      memo: { [AGENT_MEMO]: agentId, [TEXT_MEMO]: options.text.slice(0, 200), [WHEN_MEMO]: options.cron ? `cron ${options.cron}` : `every ${options.every}` },
      ...(options.note ? { state: { note: options.note } } : {}),
    });
    return this.describe(scheduleId);
  }

  /** The livecontext schedules in the namespace (of one agent when `agentId` is given). */
  async list(agentId?: string): Promise<AgentScheduleSummary[]> {
    const ids: string[] = [];
    for await (const s of this.client.schedule.list()) {
      const summary = fromSummary(s);
      if (summary && (!agentId || summary.agentId === agentId)) ids.push(summary.scheduleId);
    }
    // The list comes from visibility, a moment behind: each schedule's own description is current
    // (a schedule just paused says so). One deleted meanwhile is left out.
    const described = await Promise.all(ids.map((id) => this.describe(id).catch(() => undefined)));
    return described.filter((s): s is AgentScheduleSummary => s !== undefined).sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
  }

  async describe(scheduleId: string): Promise<AgentScheduleSummary> {
    const d = await this.handle(scheduleId).describe();
    const summary = fromSummary(d as unknown as ScheduleSummary); // a description has every field a summary reads
    if (!summary) throw new InputRejectedError('NOT_A_LIVECONTEXT_SCHEDULE', `Schedule "${scheduleId}" does not feed an agent.`);
    return { ...summary, lastDelivery: await this.lastDelivery(d) };
  }

  /** The run of the most recent scheduled time, and how it went. */
  private async lastDelivery(d: ScheduleDescription): Promise<ScheduleDelivery | null> {
    const last = d.info.recentActions.at(-1);
    if (!last) return null;
    const { workflowId, firstExecutionRunId } = last.action.workflow;
    const base = { scheduledAt: last.scheduledAt.toISOString(), workflowId };
    const handle = this.client.workflow.getHandle(workflowId, firstExecutionRunId);
    try {
      const run = await handle.describe();
      if (run.status.name === 'RUNNING') {
        const failure = run.raw.pendingActivities?.[0]?.lastFailure?.message;
        return { ...base, status: 'delivering', ...(failure ? { error: failure } : {}) };
      }
      if (run.status.name === 'COMPLETED') return { ...base, status: 'delivered' };
      await handle.result();
      return { ...base, status: 'failed', error: run.status.name };
    } catch (err) {
      if (err instanceof WorkflowFailedError) return { ...base, status: 'failed', error: innermost(err) };
      if (err instanceof WorkflowNotFoundError) return null; // past the namespace's retention
      return { ...base, status: 'failed', error: (err as Error).message.split('\n')[0] };
    }
  }

  /** Refuses a schedule whose every delivery would fail: its agent is not running, and it may not start one. */
  private async requireRunning(agentId: string): Promise<void> {
    let status: string | undefined;
    try {
      status = (await this.client.workflow.getHandle(agentId).describe()).status.name;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    if (status === 'RUNNING') return;
    throw new InputRejectedError(
      'AGENT_NOT_RUNNING',
      `${status ? `Agent "${agentId}" has ended (${status.toLowerCase()})` : `No agent "${agentId}" in this namespace`}, so every delivery of this schedule would fail. ` +
        'Start it first, or let the schedule start it (--start-model provider:model; startIfMissing in the API).',
    );
  }

  async pause(scheduleId: string, note = 'paused by livecontext'): Promise<void> {
    await this.handle(scheduleId).pause(note);
  }

  async resume(scheduleId: string, note = 'resumed by livecontext'): Promise<void> {
    await this.handle(scheduleId).unpause(note);
  }

  /** Fires the schedule now, once (as if a time had come). */
  async trigger(scheduleId: string): Promise<void> {
    await this.handle(scheduleId).trigger(ScheduleOverlapPolicy.ALLOW_ALL);
  }

  async delete(scheduleId: string): Promise<void> {
    await this.handle(scheduleId).delete();
  }

  private handle(scheduleId: string) {
    return this.client.schedule.getHandle(scheduleId);
  }
}

export { ScheduleNotFoundError };

function fromSummary(s: ScheduleSummary): AgentScheduleSummary | undefined {
  const agentId = s.memo?.[AGENT_MEMO];
  if (typeof agentId !== 'string') return undefined;
  return {
    scheduleId: s.scheduleId,
    agentId,
    text: String(s.memo?.[TEXT_MEMO] ?? ''),
    when: String(s.memo?.[WHEN_MEMO] ?? ''),
    paused: s.state.paused,
    note: s.state.note ?? null,
    nextTimes: (s.info?.nextActionTimes ?? []).slice(0, 3).map((t) => t.toISOString()),
    recentTimes: (s.info?.recentActions ?? []).slice(-3).map((a) => a.scheduledAt.toISOString()),
    lastDelivery: null,
  };
}

/** The message of the failure at the bottom of a chain (the activity's own words, not "Activity task failed"). */
function innermost(err: Error): string {
  let e: Error = err;
  while ((e as { cause?: Error }).cause) e = (e as { cause?: Error }).cause!;
  return e.message.split('\n')[0];
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `15m`, `1h`, `1d` (also combined: `1h30m`) → milliseconds; at least one second. */
export function parseInterval(text: string): number {
  const parts = [...text.trim().matchAll(/(\d+)\s*([smhd])/g)];
  const joined = parts.map((p) => p[0]).join('');
  if (!parts.length || joined.replace(/\s/g, '') !== text.trim().replace(/\s/g, '')) {
    throw new InputRejectedError('BAD_SCHEDULE', `"${text}" is not an interval: write e.g. 30s, 15m, 1h, 1d or 1h30m.`);
  }
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * UNITS[p[2]], 0);
  if (ms < 1_000) throw new InputRejectedError('BAD_SCHEDULE', 'An interval is at least 1s.');
  return ms;
}
