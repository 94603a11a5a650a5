/**
 * The A2A agent card of one agent, made from its state at each request: its name is the agent's id, its
 * skills are the tools it was given (and the MCP tools it was last offered), its one interface is the
 * gateway's JSON-RPC endpoint for the agent, and its security scheme is the gateway's bearer token when
 * the gateway has tokens.
 */
import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { AgentStatus } from '../../workflows/messages';

/** The path of an agent's JSON-RPC endpoint (its card is under it, at `.well-known/agent-card.json`). */
export const a2aPath = (agentId: string) => `/a2a/agents/${encodeURIComponent(agentId)}`;

const skill = (id: string, name: string, description: string, tags: string[]): AgentSkill => ({
  id,
  name,
  description,
  tags,
  examples: [],
  inputModes: [],
  outputModes: [],
  securityRequirements: [],
});

export function agentCard(agentId: string, status: AgentStatus, baseUrl: string, bearer: boolean, version: string, push = false): AgentCard {
  const instruction = status.systemInstruction.trim().split('\n')[0] ?? '';
  const description = instruction ? instruction.slice(0, 300) : `A livecontext agent (model ${status.config.model}).`;
  const tools = [...new Set([...(status.config.tools ?? []), ...(status.mcpTools ?? [])])].sort();
  const skills = [
    skill('conversation', 'Conversation', 'Send a message; the answer is the task’s artifact. Each message starts one turn of the agent.', ['chat']),
    ...tools.map((t) => skill(`tool:${t}`, t, `Uses the ${t} tool.`, ['tool'])),
    ...Object.keys(status.config.subAgents ?? {}).map((p) => skill(`sub-agent:${p}`, p, `Delegates to the ${p} sub-agent.`, ['sub-agent'])),
  ];
  return {
    name: agentId,
    description,
    // The same endpoint answers A2A 0.3's method names (message/send, tasks/get…) through the SDK's compat layer.
    supportedInterfaces: duplicateInterfacesForLegacy(
      [{ url: baseUrl + a2aPath(agentId), protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
      ['JSONRPC'],
    ),
    provider: { organization: 'livecontext', url: baseUrl },
    version,
    // Push notifications: when the gateway has LIVECONTEXT_A2A_PUSH_SECRET (it seals the caller's token; the worker signs with it).
    capabilities: { streaming: true, pushNotifications: push, extensions: [], extendedAgentCard: false },
    securitySchemes: bearer
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { scheme: 'Bearer', bearerFormat: '', description: 'A token of the gateway (LIVECONTEXT_GATEWAY_TOKEN).' },
            },
          },
        }
      : {},
    securityRequirements: bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills,
    signatures: [],
  };
}
