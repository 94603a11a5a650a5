/** What a model call was sent (`livecontext inspect --call`): the request rendered again from history and checked against its fingerprint. */
import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import type { AgentClient } from '../../client/agent-client';
import { shortened } from '../../client/inspect-call';
import { AgentPath } from '../api-schemas';
import { type ApiApp, errorResponses, jsonResponse } from '../openapi';

const TAG = ['agents'];

const CallPath = AgentPath.extend({ seq: z.coerce.number().int().positive().describe("The seq of the call's model_output entry.") });
const CallQuery = z.object({
  short: z
    .enum(['0', '1', 'true', 'false'])
    .optional()
    .transform((v) => v === '1' || v === 'true')
    .describe('1: strings over 200 characters (image data, long results) are cut; the hashes stay those of the whole body.'),
});

const Fingerprint = z
  .object({
    v: z.literal(1),
    sha256: z.string().optional().describe('SHA-256 of the body as the SDK sent it.'),
    bytes: z.number().optional(),
    rendering: z.string().optional().describe('openai-chat-completions or anthropic-messages.'),
    model: z.string(),
    upto_seq: z.number().describe("The call's history bound."),
    first_seq: z.number().optional(),
    last_seq: z.number().optional(),
    known_from: z.number().optional(),
    segments: z.number().optional(),
    window: z.number().optional(),
    budget: z.number().optional(),
    dropped: z.number().optional().describe('Context messages trimmed to fit the budget.'),
    compaction_seq: z.number().optional(),
    compact: z.literal(true).optional(),
    tokens: z.number().describe("The tokenizer's estimate of the input."),
    refused: z.number().optional(),
    archive_tools: z.literal(true).optional(),
    tools: z.number().optional(),
    cache_ttl: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    parts: z.record(z.string(), z.string()).optional().describe("Short hashes of the body's parts (messages, system, tools, rest)."),
  })
  .meta({ id: 'RequestFingerprint' });

export const InspectedCallSchema = z
  .object({
    agentId: z.string(),
    seq: z.number(),
    recorded: Fingerprint.optional().describe('The fingerprint the call recorded (absent: recorded before fingerprints existed).'),
    rendered: Fingerprint.optional().describe('The fingerprint of the request rendered now.'),
    request: z
      .object({ rendering: z.string(), body: z.record(z.string(), z.unknown()) })
      .optional()
      .describe('The request body as the SDK sends it.'),
    sha256: z.string().optional(),
    reproduced: z.boolean().describe('True: the rendering has the recorded hash, so this is exactly what was sent.'),
    warnings: z.array(z.string()).describe('Why it may not be exactly what was sent.'),
  })
  .meta({ id: 'InspectedCall' });

export const getCallRequest = createRoute({
  method: 'get',
  path: '/agents/{id}/calls/{seq}/request',
  tags: TAG,
  summary: 'The request a model call sent, rendered again from history by a worker and checked against its fingerprint',
  request: { params: CallPath, query: CallQuery },
  responses: { 200: jsonResponse(InspectedCallSchema, 'The request, its hash, the recorded fingerprint and warnings.'), ...errorResponses(404) },
});

export function mountAgentInspectRoutes(api: ApiApp, agents: AgentClient): void {
  api.openapi(getCallRequest, async (c) => {
    const { id, seq } = c.req.valid('param');
    const { short } = c.req.valid('query');
    const inspected = await agents.inspectCall(id, seq);
    return c.json(short ? shortened(inspected) : inspected, 200);
  });
}
