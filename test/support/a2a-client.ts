/** @a2a-js/sdk's own client against a gateway's agent, with the gateway's bearer token on every request. */
import { type Message, SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

export function bearerFetch(token: string | undefined): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** A client of agent `agentId` at `gatewayUrl`, made from the agent's card. */
export function a2aClient(gatewayUrl: string, agentId: string, token?: string): Promise<Client> {
  const fetchImpl = bearerFetch(token);
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
  return factory.createFromUrl(`${gatewayUrl}/a2a/agents/${encodeURIComponent(agentId)}/`);
}

/** A user message (continuing `taskId` when given). */
export function userMessage(messageId: string, text: string, taskId?: string, metadata?: Record<string, unknown>): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}), ...(metadata ? { metadata } : {}) },
  });
}

/** The text of an artifact's or a message's parts. */
export const partsText = (m: Pick<Message, 'parts'> | undefined) => (m?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

/** A stream event in short: `task:<state>`, `status:<state>`, `artifact:<text>`. */
export function eventShape(e: StreamResponse): string {
  const p = e.payload;
  if (p?.$case === 'task') return `task:${p.value.status?.state}`;
  if (p?.$case === 'statusUpdate') return `status:${p.value.status?.state}`;
  if (p?.$case === 'artifactUpdate') return `artifact:${partsText(p.value.artifact)}`;
  return `message:${partsText(p?.value as Message)}`;
}

export const taskOf = (e: StreamResponse): Task | undefined => (e.payload?.$case === 'task' ? e.payload.value : undefined);
