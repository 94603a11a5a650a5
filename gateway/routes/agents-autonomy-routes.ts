/** Agents that work on their own: interrupting a turn, and schedules that feed an agent (Temporal Schedules). */
import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { InputRejectedError, NewAgentConfig } from '../../agent/index';
import type { AgentClient } from '../../client/agent-client';
import { AgentPath } from '../api-schemas';
import { HttpError } from '../http-errors';
import { type ApiApp, errorResponses, jsonBody, jsonResponse } from '../openapi';

const TAG = ['autonomy'];

const InterruptBody = z
  .object({
    by: z.string().max(200).optional(),
    inputSeq: z.number().int().positive().optional().describe("Only this input's turn: 409 `NOT_RUNNING` when it is queued or over"),
  })
  .strict();
const InterruptResult = z
  .object({ interrupted: z.boolean().describe('false: the agent was not working on a turn'), lastSeq: z.number() })
  .meta({ id: 'InterruptResult' });

export const ScheduleSchema = z
  .object({
    scheduleId: z.string(),
    agentId: z.string(),
    text: z.string(),
    when: z.string().describe('`cron <expression>` or `every <interval>`'),
    paused: z.boolean(),
    note: z.string().nullable(),
    nextTimes: z.array(z.string()),
    recentTimes: z.array(z.string()),
    lastDelivery: z
      .object({
        scheduledAt: z.string(),
        status: z.enum(['delivered', 'delivering', 'failed']).describe('delivering: it runs, retrying while no worker answers'),
        error: z.string().optional().describe('Why it failed (or why its last attempt did), e.g. the agent is not running'),
        workflowId: z.string(),
      })
      .nullable()
      .describe('How the most recent scheduled time went; null before the first'),
  })
  .meta({ id: 'Schedule' });
const AddScheduleBody = z
  .object({
    cron: z.string().max(200).optional().describe('A cron expression, UTC unless it starts with CRON_TZ=<zone>'),
    every: z.string().max(50).optional().describe('An interval: 30s, 15m, 1h, 1d, 1h30m'),
    text: z
      .string()
      .min(1)
      .max(64 * 1024),
    sender: z.string().max(200).optional(),
    startIfMissing: NewAgentConfig.extend({
      systemInstruction: z
        .string()
        .max(64 * 1024)
        .optional(),
    })
      .optional()
      .describe('Start the agent with this when it is not running at a scheduled time'),
    scheduleId: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,150}$/)
      .optional(),
    note: z.string().max(1000).optional(),
  })
  .strict()
  .meta({ id: 'AddSchedule' });
const SchedulePath = z.object({ scheduleId: z.string().regex(/^[^\s/]{1,255}$/) });
const ScheduleList = z.object({ schedules: z.array(ScheduleSchema) }).meta({ id: 'ScheduleList' });
const Done = z.object({ ok: z.literal(true) });

export const interruptAgent = createRoute({
  method: 'post',
  path: '/agents/{id}/interrupt',
  tags: TAG,
  summary: 'End the running turn without an answer: its model call or tools are cancelled, and the agent waits for input',
  request: { params: AgentPath, body: jsonBody(InterruptBody, false) },
  responses: { 200: jsonResponse(InterruptResult, 'Recorded (or nothing was running).'), ...errorResponses(403, 404, 409, 415) },
});

export const listSchedules = createRoute({
  method: 'get',
  path: '/agents/{id}/schedules',
  tags: TAG,
  summary: 'The schedules that feed this agent',
  request: { params: AgentPath },
  responses: { 200: jsonResponse(ScheduleList, 'Its schedules.'), ...errorResponses(404) },
});

export const addSchedule = createRoute({
  method: 'post',
  path: '/agents/{id}/schedules',
  tags: TAG,
  summary: 'Send the agent input at set times (a cron expression or an interval), on Temporal Schedules',
  request: { params: AgentPath, body: jsonBody(AddScheduleBody) },
  responses: { 201: jsonResponse(ScheduleSchema, 'Added.'), ...errorResponses(403, 409, 415) },
});

const scheduleAction = (action: 'pause' | 'resume' | 'trigger', summary: string) =>
  createRoute({
    method: 'post',
    path: `/schedules/{scheduleId}/${action}`,
    tags: TAG,
    summary,
    request: { params: SchedulePath },
    responses: { 200: jsonResponse(Done, 'Done.'), ...errorResponses(403, 404) },
  });
export const pauseSchedule = scheduleAction('pause', 'Pause a schedule');
export const resumeSchedule = scheduleAction('resume', 'Resume a paused schedule');
export const triggerSchedule = scheduleAction('trigger', 'Fire a schedule once, now');

export const deleteSchedule = createRoute({
  method: 'delete',
  path: '/schedules/{scheduleId}',
  tags: TAG,
  summary: 'Delete a schedule',
  request: { params: SchedulePath },
  responses: { 200: jsonResponse(Done, 'Deleted.'), ...errorResponses(403, 404) },
});

/** A schedule that is not there is a 404, whatever the SDK calls it. */
async function onSchedule<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if ((err as Error)?.name === 'ScheduleNotFoundError') throw new HttpError(404, 'SCHEDULE_NOT_FOUND', 'No such schedule.');
    if ((err as Error)?.name === 'ScheduleAlreadyRunning') throw new HttpError(409, 'SCHEDULE_EXISTS', 'A schedule with this id exists already.');
    // The request's own fault (no time, a bad interval or configuration): nothing was created.
    if (err instanceof InputRejectedError) throw new HttpError(400, err.code, err.message);
    throw err;
  }
}

export function mountAgentAutonomyRoutes(api: ApiApp, agents: AgentClient): void {
  api.openapi(interruptAgent, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    return c.json(await agents.interrupt(id, body.by ?? 'http', { inputSeq: body.inputSeq }), 200);
  });
  api.openapi(listSchedules, async (c) => c.json({ schedules: await agents.schedules.list(c.req.valid('param').id) }, 200));
  api.openapi(addSchedule, async (c) => {
    const { id } = c.req.valid('param');
    const { startIfMissing, ...rest } = c.req.valid('json');
    return c.json(await onSchedule(() => agents.schedules.add(id, { ...rest, ...(startIfMissing ? { startIfMissing } : {}) })), 201);
  });
  for (const [route, act] of [
    [pauseSchedule, (sid: string) => agents.schedules.pause(sid)],
    [resumeSchedule, (sid: string) => agents.schedules.resume(sid)],
    [triggerSchedule, (sid: string) => agents.schedules.trigger(sid)],
  ] as const) {
    api.openapi(route, async (c) => {
      await onSchedule(() => act(c.req.valid('param').scheduleId));
      return c.json({ ok: true as const }, 200);
    });
  }
  api.openapi(deleteSchedule, async (c) => {
    await onSchedule(() => agents.schedules.delete(c.req.valid('param').scheduleId));
    return c.json({ ok: true as const }, 200);
  });
}
