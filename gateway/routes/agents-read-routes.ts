/** Reading agents: the list, one agent's status, its history page by page, its snapshot (export). */
import { Readable } from 'node:stream';
import { createRoute } from '@hono/zod-openapi';
import type { AgentClient } from '../../client/agent-client';
import { AgentList, AgentPath, AgentStatusSchema, HistoryPage, HistoryQuery, ListQuery, SnapshotSchema } from '../api-schemas';
import { withStateWords } from '../../client/state-view';
import { type ApiApp, errorResponses, jsonResponse } from '../openapi';

const TAG = ['agents'];

export const listAgents = createRoute({
  method: 'get',
  path: '/agents',
  tags: TAG,
  summary: 'Agents in the namespace (running ones; ?all=1 for every one), newest first',
  request: { query: ListQuery },
  responses: { 200: jsonResponse(AgentList, 'The agents, from Temporal visibility.'), ...errorResponses() },
});

export const getAgent = createRoute({
  method: 'get',
  path: '/agents/{id}',
  tags: TAG,
  summary: "An agent's status: run state, what it waits for, approvals, notebook, tasks, usage",
  request: { params: AgentPath },
  responses: { 200: jsonResponse(AgentStatusSchema, 'The agent as its own rules see it.'), ...errorResponses(404) },
});

export const getHistory = createRoute({
  method: 'get',
  path: '/agents/{id}/history',
  tags: TAG,
  summary: "A page of the agent's history entries (seq > after)",
  request: { params: AgentPath, query: HistoryQuery },
  responses: { 200: jsonResponse(HistoryPage, 'Entries in seq order; follow nextAfter for more.'), ...errorResponses(404) },
});

export const exportAgent = createRoute({
  method: 'get',
  path: '/agents/{id}/export',
  tags: TAG,
  summary: 'The whole agent as a snapshot, for POST /agents/import (here or on another cluster)',
  request: { params: AgentPath },
  responses: { 200: jsonResponse(SnapshotSchema, 'A livecontext agent snapshot (no secrets).'), ...errorResponses(404) },
});

export function mountAgentReadRoutes(api: ApiApp, agents: AgentClient): void {
  api.openapi(listAgents, async (c) => {
    const { all, limit } = c.req.valid('query');
    return c.json({ agents: await agents.list({ all, ...(limit ? { limit } : {}) }) }, 200);
  });

  api.openapi(getAgent, async (c) => c.json(withStateWords(await agents.state(c.req.valid('param').id)), 200));

  api.openapi(getHistory, async (c) => {
    const { id } = c.req.valid('param');
    const { after, limit } = c.req.valid('query');
    const page = await agents.entries(id, { afterSeq: after ?? 0, ...(limit ? { limit } : {}) });
    const rewound = page.rewound ? { rewound: page.rewound } : {};
    return c.json({ entries: page.entries, nextAfter: page.nextAfterSeq, lastSeq: page.lastSeq, ...rewound }, 200);
  });

  api.openapi(exportAgent, async (c) => {
    const { id } = c.req.valid('param');
    // As `livecontext export` writes it: the source named, so an import elsewhere may keep the id; streamed,
    // archived entries segment by segment, so a large agent is never held whole.
    const exported = await agents.export(id);
    const body = Readable.toWeb(Readable.from(encode(exported.text))) as ReadableStream<Uint8Array>;
    return c.body(body, 200, { 'content-type': 'application/json' }) as never;
  });
}

async function* encode(pieces: AsyncIterable<string>): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  for await (const piece of pieces) yield encoder.encode(piece);
}
