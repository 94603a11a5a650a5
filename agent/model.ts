/**
 * The Model contract (seed 002, strands-like): stream-only. Implementations live in activities/models;
 * this file only holds the provider-neutral types so tests and the workflow can share them.
 */
import type { ContextMessage } from './live-context';
import type { MessageDelta } from './message-delta';
import type { ToolSpec } from './tool-spec';

/** `auto`, `required`, `none`, or one named tool. */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

export interface ModelConfig {
  modelId: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  stopSequences?: string[];
  toolChoice?: ToolChoice;
  /** Provider-specific extras, passed through. */
  extra?: Record<string, unknown>;
}

export interface ModelInfo {
  providerId: string;
  /** Wire specification, e.g. `openai-chat-completions`. */
  specification: string;
  modelId: string;
}

/**
 * Who a call is for (seed 002 `requestMetadata`): identifiers only, never secrets or content. The
 * built-in adapters send the session as an opaque end-user id (see activities/models/request-identity.ts).
 */
export interface RequestMetadata {
  /** The agent (its workflow id). */
  sessionId?: string;
  /** The agent's current workflow run. */
  runId?: string;
  /** This model call within the run (the activity id, the same for each of its attempts). */
  traceId?: string;
}

export interface StreamOptions {
  /** Aborted when the activity is cancelled or times out. */
  signal?: AbortSignal;
  requestMetadata?: RequestMetadata;
  /** Attach the provider's own stream events to the deltas (`MessageDelta.providerRaw`), for observers. */
  providerRaw?: boolean;
  /**
   * A typed answer is due: an answer without tool calls must be JSON matching this schema, through the
   * provider's structured output (OpenAI `response_format`; Anthropic a forced answer tool, whose call
   * the adapter streams as the answer's text). Tools stay offered. Models without such support may
   * ignore it: the caller checks the answer either way.
   */
  responseFormat?: ResponseFormat;
  /** How long the provider should keep the prompt's cached prefix, where it lets the caller choose (Anthropic: 5m or 1h). */
  cacheTtl?: '5m' | '1h';
}

/** The schema of a typed answer as models are sent it (see agent/response-schema.ts wireResponseFormat). */
export interface ResponseFormat {
  /** Letters, digits, `_` and `-`, at most 64. */
  name: string;
  /** A JSON Schema whose root is an object. */
  schema: Record<string, unknown>;
}

/** A provider request as sent: its rendering (`openai-chat-completions`, `anthropic-messages`) and JSON body. */
export interface ModelRequest {
  rendering: string;
  body: Record<string, unknown>;
}

export interface Model {
  updateConfig(config: Partial<ModelConfig>): void;
  getConfig(): ModelConfig;
  modelInfo(): ModelInfo;
  /**
   * The request body `stream` sends for these arguments, as the provider's SDK serialises it (no
   * headers, no keys), and the name of its rendering. Pure: the same arguments give the same body, so a
   * call can be rendered again later and checked against its fingerprint. Absent on models without a
   * wire request (scripted, the offline demo).
   */
  request?(messages: readonly ContextMessage[], toolSpecs: readonly ToolSpec[], systemPrompt: string | undefined, options: StreamOptions): ModelRequest;
  /** Must end with exactly one `done` or `error` delta. */
  stream(
    messages: readonly ContextMessage[],
    toolSpecs: readonly ToolSpec[],
    systemPrompt: string | undefined,
    options: StreamOptions,
  ): AsyncIterable<MessageDelta>;
}
