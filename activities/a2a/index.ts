/** Remote A2A agents as tools of a worker: the `a2aAgents` configuration and the connections that serve their tools. */
export { type A2aAgentConfig, A2aAgentsFile, a2aAgentsIn, parseA2aConfig } from './config';
export { A2aAgents, type A2aAgentStatus } from './a2a-agents';
