/**
 * An MCP tool result as the text the model reads. `structuredContent` wins as JSON text (the spec has
 * servers repeat it as text for older clients, so the text blocks would only say it twice); otherwise
 * text blocks are joined. Images, audio and resources become one short line each — their type and size —
 * until results can carry attachments. `isError: true` is reported as an error with the server's text.
 *
 * The result is read leniently: the server answered, so a malformed block (an image whose data is not
 * base64, a block of an unknown shape) becomes a line saying what was wrong with it, and the rest of the
 * result stands. Only a result that is not an MCP result at all is refused (McpResultError).
 */
import {
  AudioContentSchema,
  type CallToolResult,
  EmbeddedResourceSchema,
  ImageContentSchema,
  ResourceLinkSchema,
  TextContentSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type Secret, redactJson, redactSecretsAcross } from '../tools/redact-secrets';

export interface McpResultText {
  text: string;
  isError: boolean;
}

/** A tool result that is not an MCP result (not an object, `content` not a list…): the server's fault. */
export class McpResultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Decoded size of base64 data, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

type Block = CallToolResult['content'][number];

const BLOCK_SCHEMAS = {
  text: TextContentSchema,
  image: ImageContentSchema,
  audio: AudioContentSchema,
  resource: EmbeddedResourceSchema,
  resource_link: ResourceLinkSchema,
} as const;

export function describeBlock(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}; not shown to the model]`;
    case 'resource': {
      const r = block.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
      const size = typeof r.text === 'string' ? `${r.text.length} characters of text` : formatBytes(base64Bytes(r.blob ?? ''));
      return `[resource: ${r.uri}${r.mimeType ? `, ${r.mimeType}` : ''}, ${size}; not shown to the model]`;
    }
    case 'resource_link':
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}${block.mimeType ? `, ${block.mimeType}` : ''}]`;
    default:
      return `[${(block as { type?: string }).type ?? 'unknown'} content; not shown to the model]`;
  }
}

/** A content block as the model reads it; one the protocol does not allow says what is wrong with it. */
function readBlock(block: unknown, index: number): { text: string; isText: boolean } {
  const type = block && typeof block === 'object' ? (block as { type?: unknown }).type : undefined;
  const schema = typeof type === 'string' ? BLOCK_SCHEMAS[type as keyof typeof BLOCK_SCHEMAS] : undefined;
  if (!schema)
    return {
      text: `[${typeof type === 'string' ? `${short(type)} ` : ''}content the client does not know (content[${index}]); not shown to the model]`,
      isText: false,
    };
  const parsed = schema.safeParse(block);
  if (!parsed.success) {
    const what = parsed.error.issues.map((i) => `${i.path.join('.') || type}: ${i.message}`).join('; ');
    return { text: `[${type} content the server sent is malformed (content[${index}]: ${short(what)}); left out]`, isText: false };
  }
  return { text: describeBlock(parsed.data as Block), isText: type === 'text' };
}

const short = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Cuts secrets out of a result before it is read: text blocks as one text (a secret split between two
 * blocks is found), every other string where it stands (structuredContent's values, resource text).
 */
export function redactMcpResult(result: unknown, secrets: readonly Secret[]): unknown {
  if (!result || typeof result !== 'object' || Array.isArray(result)) return redactJson(result, secrets);
  const { content } = result as { content?: unknown };
  if (!Array.isArray(content)) return redactJson(result, secrets);
  const textAt = content.flatMap((b, i) =>
    b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string' ? [i] : [],
  );
  const texts = redactSecretsAcross(
    textAt.map((i) => (content[i] as { text: string }).text),
    secrets,
  );
  const joined = content.slice();
  textAt.forEach((at, k) => (joined[at] = { ...(content[at] as object), text: texts[k] }));
  return redactJson({ ...result, content: joined }, secrets);
}

export function mcpResultText(result: unknown): McpResultText {
  if (!result || typeof result !== 'object' || Array.isArray(result)) {
    throw new McpResultError(
      `its result is not an MCP tool result (a JSON object), but ${result === null ? 'null' : Array.isArray(result) ? 'a list' : typeof result}`,
    );
  }
  const r = result as { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown };
  // A server on the protocol's first version answers `{ toolResult }`.
  if (r.content === undefined && 'toolResult' in r)
    return { text: typeof r.toolResult === 'string' ? r.toolResult : (JSON.stringify(r.toolResult) ?? ''), isError: false };
  if (r.content !== undefined && !Array.isArray(r.content)) throw new McpResultError(`its result's "content" is not a list (${typeof r.content})`);
  const blocks = ((r.content as unknown[] | undefined) ?? []).map(readBlock);
  const isError = r.isError === true;
  const structured = r.structuredContent;
  const structuredOk = structured !== undefined && structured !== null && typeof structured === 'object' && !Array.isArray(structured);
  let text: string;
  if (structuredOk && !isError) text = [JSON.stringify(structured), ...blocks.filter((b) => !b.isText).map((b) => b.text)].join('\n');
  else {
    const lines = blocks.map((b) => b.text);
    if (structured !== undefined && !structuredOk) lines.push('[structuredContent the server sent is not a JSON object; left out]');
    text = lines.join('\n');
  }
  return { text: text || (isError ? '(the server gave no error text)' : '(no output)'), isError };
}
