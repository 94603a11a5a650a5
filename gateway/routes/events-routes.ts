/**
 * GET /agents/:id/events: the agent's AG-UI event stream across turns (see events/agent-event-stream).
 * Starts from `Last-Event-ID` (a cursor this gateway or another sent), or after `?after=<seq>`, or from
 * now; `?after=0` replays the whole history first.
 */
import type { Hono } from 'hono';
import { agentEvents } from '../events/agent-event-stream';
import { type Cursor, parseCursor } from '../events/cursor';
import { sseOptions, sseResponse } from '../events/sse';
import type { GatewayEnv, GatewayOptions } from '../gateway-app';
import { HttpError, requireAgentId } from '../http-errors';

/** The cursor of a `Last-Event-ID` header, if one was sent; 400 for anything else there. */
export function lastEventCursor(header: string | undefined): Cursor | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const cursor = parseCursor(header);
  if (!cursor) throw new HttpError(400, 'BAD_LAST_EVENT_ID', 'Last-Event-ID is not an id this gateway sent.');
  return cursor;
}

export function mountEventsRoutes(app: Hono<GatewayEnv>, options: GatewayOptions): void {
  const { agents } = options;
  const log = options.log ?? ((m: string) => console.error(m));
  app.get('/agents/:id/events', async (c) => {
    const agentId = requireAgentId(c.req.param('id'), "path's agent id");
    const cursor = lastEventCursor(c.req.header('last-event-id'));
    const afterText = c.req.query('after');
    if (afterText !== undefined && !/^\d{1,15}$/.test(afterText))
      throw new HttpError(400, 'BAD_REQUEST', '?after must be a sequence number (0 for the whole history).');
    await agents.state(agentId); // 404 for an unknown agent, before the stream starts
    const after = afterText === undefined ? undefined : Number(afterText);
    return sseResponse(
      c,
      (signal) => agentEvents({ agents, agentId, signal, ...(cursor ? { cursor } : {}), ...(after !== undefined ? { after } : {}) }),
      sseOptions(options, log),
    );
  });
}
