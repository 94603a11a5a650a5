/** The agent's widgets as the host sees them: the memory notebook (read, set, append) and the task list. */
import { createRoute } from '@hono/zod-openapi';
import type { AgentClient } from '../../client/agent-client';
import { AgentPath, NotebookResult, NotebookView, NotebookWriteBody, TasksView } from '../api-schemas';
import { type ApiApp, errorResponses, jsonBody, jsonResponse } from '../openapi';

const TAG = ['widgets'];

export const getNotebook = createRoute({
  method: 'get',
  path: '/agents/{id}/notebook',
  tags: TAG,
  summary: "The agent's memory notebook",
  request: { params: AgentPath },
  responses: { 200: jsonResponse(NotebookView, 'Its content (the model sees it in every call).'), ...errorResponses(404) },
});

export const writeNotebook = createRoute({
  method: 'post',
  path: '/agents/{id}/notebook',
  tags: TAG,
  summary: 'Write the notebook as the host: {set} replaces it, {append} adds to it (recorded in history)',
  request: { params: AgentPath, body: jsonBody(NotebookWriteBody) },
  responses: { 200: jsonResponse(NotebookResult, 'The notebook after the write.'), ...errorResponses(403, 404, 409, 415) },
});

export const getTasks = createRoute({
  method: 'get',
  path: '/agents/{id}/tasks',
  tags: TAG,
  summary: 'The task list the model keeps',
  request: { params: AgentPath },
  responses: { 200: jsonResponse(TasksView, 'Its tasks, in order.'), ...errorResponses(404) },
});

export function mountAgentWidgetRoutes(api: ApiApp, agents: AgentClient): void {
  api.openapi(getNotebook, async (c) => c.json({ notebook: (await agents.state(c.req.valid('param').id)).notebook }, 200));
  api.openapi(writeNotebook, async (c) => c.json(await agents.updateNotebook(c.req.valid('param').id, c.req.valid('json')), 200));
  api.openapi(getTasks, async (c) => c.json({ tasks: (await agents.state(c.req.valid('param').id)).tasks }, 200));
}
