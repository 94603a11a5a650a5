/**
 * The `a2aAgents` configuration, beside `mcpServers` in the same JSON file:
 * `{"a2aAgents": {"billing": {"url": "https://agents.example.com/a2a/agents/billing/", "tokenEnv": "BILLING_A2A_TOKEN"}}}`.
 * Each entry becomes one tool named after its key. `url` is the agent's card URL (ending in `.json`) or its
 * base URL (the card is read from `<url>/.well-known/agent-card.json`). The bearer token is read from the
 * worker's environment variable that `tokenEnv` names, so only the variable's name is ever written down;
 * the token stays in the worker's memory and is cut out of every error and result text.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../../common/user-error';
import type { Secret } from '../tools/redact-secrets';

/** One remote agent as written in the file. */
export const A2aAgentEntry = z
  .object({
    /** The agent card's URL (`…/agent-card.json`) or the agent's base URL. */
    url: z.string().min(1),
    /** The environment variable that holds the bearer token (its name, never the token). */
    tokenEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional(),
    /** Replaces the description the card gives (what the model reads to decide when to delegate). */
    description: z.string().min(1).optional(),
    /** How long one call may follow the remote task, in ms (default A2A_DEFAULT_TIMEOUT_MS). */
    timeout: z.number().int().positive().optional(),
    /** Configured but off. */
    disabled: z.boolean().optional(),
  })
  .strict();
export type A2aAgentEntry = z.infer<typeof A2aAgentEntry>;

/** The tool's name is the entry's key, so it follows the providers' rule for tool names. */
const AGENT_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export const A2aAgentsFile = z.object({ a2aAgents: z.record(z.string(), A2aAgentEntry) });
export type A2aAgentsFile = z.infer<typeof A2aAgentsFile>;

/** A remote agent ready to reach: its token read from the environment. */
export interface A2aAgentConfig {
  name: string;
  /** The card's URL: `url` itself when it names a `.json`, else `<url>/.well-known/agent-card.json`. */
  cardUrl: string;
  description?: string;
  timeoutMs?: number;
  /** The bearer token, if `tokenEnv` is set (never logged, never in a result). */
  token?: string;
  /** The token as a secret to cut out of text (named by its variable). */
  secrets: Secret[];
}

/** The card's URL of a configured `url`. */
export function cardUrlOf(url: string): string {
  const u = new URL(url);
  if (u.pathname.endsWith('.json')) return u.toString();
  if (!u.pathname.endsWith('/')) u.pathname += '/';
  return new URL('.well-known/agent-card.json', u).toString();
}

/** Checks `{"a2aAgents": {...}}` (or the inner object alone) and reads the tokens from `env`. */
export function parseA2aConfig(json: unknown, env: NodeJS.ProcessEnv = process.env, where = 'the A2A configuration'): A2aAgentConfig[] {
  const wrapped = json && typeof json === 'object' && !Array.isArray(json) && !('a2aAgents' in json) ? { a2aAgents: json } : json;
  const parsed = A2aAgentsFile.safeParse(wrapped);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`).join('; ');
    throw new UserError(`Invalid ${where}: ${issues}.`, 'A2A_CONFIG');
  }
  return Object.entries(parsed.data.a2aAgents)
    .filter(([, entry]) => !entry.disabled)
    .map(([name, entry]) => {
      if (!AGENT_NAME.test(name))
        throw new UserError(`Invalid ${where}: a2aAgents."${name}" is the tool's name, so it is letters, digits, "_" and "-" (at most 64).`, 'A2A_CONFIG');
      let cardUrl: string;
      try {
        cardUrl = cardUrlOf(entry.url);
      } catch {
        throw new UserError(`Invalid ${where}: a2aAgents.${name}.url is not a URL.`, 'A2A_CONFIG');
      }
      const token = entry.tokenEnv ? env[entry.tokenEnv] : undefined;
      if (entry.tokenEnv && !token)
        throw new UserError(
          `Invalid ${where}: a2aAgents.${name}.tokenEnv names ${entry.tokenEnv}, which is not set in the worker's environment.`,
          'A2A_CONFIG',
        );
      return {
        name,
        cardUrl,
        ...(entry.description ? { description: entry.description } : {}),
        ...(entry.timeout ? { timeoutMs: entry.timeout } : {}),
        ...(token ? { token } : {}),
        secrets: token ? [{ name: entry.tokenEnv!, value: token }] : [],
      };
    });
}

/** The `a2aAgents` of a file that may hold `mcpServers` too (none: an empty list). */
export function a2aAgentsIn(json: unknown, env: NodeJS.ProcessEnv = process.env, where?: string): A2aAgentConfig[] {
  if (!json || typeof json !== 'object' || !('a2aAgents' in json)) return [];
  return parseA2aConfig({ a2aAgents: (json as { a2aAgents: unknown }).a2aAgents }, env, where);
}

/** The `a2aAgents` of the JSON file `livecontext worker --mcp` reads (one that the MCP configuration already read). */
export function loadA2aAgentsFile(file: string, env: NodeJS.ProcessEnv = process.env): A2aAgentConfig[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`Cannot read the A2A agents of ${file}: ${(err as Error).message}.`, 'A2A_CONFIG');
  }
  return a2aAgentsIn(json, env, file);
}
