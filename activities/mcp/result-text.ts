/**
 * An MCP tool result as the text the model reads. `structuredContent` wins as JSON text (the spec has
 * servers repeat it as text for older clients, so the text blocks would only say it twice); otherwise
 * text blocks are joined. Images, audio and resources become one short line each — their type and size —
 * until results can carry attachments. `isError: true` is reported as an error with the server's text.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface McpResultText {
  text: string;
  isError: boolean;
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

export function mcpResultText(result: CallToolResult | { toolResult: unknown }): McpResultText {
  // A server on the protocol's first version answers `{ toolResult }`.
  if ('toolResult' in result) return { text: typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult), isError: false };
  const content = result.content ?? [];
  const isError = result.isError === true;
  const others = content.filter((b) => b.type !== 'text').map(describeBlock);
  let text: string;
  if (result.structuredContent !== undefined && !isError) text = [JSON.stringify(result.structuredContent), ...others].join('\n');
  else text = content.map(describeBlock).join('\n');
  return { text: text || (isError ? '(the server gave no error text)' : '(no output)'), isError };
}
