/** MCP tool results as the model reads them, and the tool an MCP tool becomes (spec, approval). */
import { mcpResultText } from '../../activities/mcp/result-text';
import { mcpTool, needsApprovalFor, specParameters } from '../../activities/mcp/mcp-tool';
import { McpServerConnection } from '../../activities/mcp/server-connection';
import { toolSpec } from '../../activities/tools/define-tool';
import { ToolRegistry } from '../../activities/tools/registry';

test('text blocks are joined', () => {
  expect(mcpResultText({ content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] })).toEqual({ text: 'one\ntwo', isError: false });
  expect(mcpResultText({ content: [] })).toEqual({ text: '(no output)', isError: false });
});

test('structuredContent becomes JSON text (its text twin is not repeated)', () => {
  const r = mcpResultText({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1, b: [true] } });
  expect(r).toEqual({ text: '{"a":1,"b":[true]}', isError: false });
});

test('images, audio and resources become a short description with type and size', () => {
  const png = Buffer.alloc(3000).toString('base64');
  const r = mcpResultText({
    content: [
      { type: 'text', text: 'here:' },
      { type: 'image', data: png, mimeType: 'image/png' },
      { type: 'audio', data: Buffer.alloc(10).toString('base64'), mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hello' } },
      { type: 'resource', resource: { uri: 'file:///b.bin', blob: Buffer.alloc(2048).toString('base64') } },
      { type: 'resource_link', uri: 'file:///c.md', name: 'c', mimeType: 'text/markdown' },
    ],
  });
  expect(r.text.split('\n')).toEqual([
    'here:',
    '[image: image/png, 2.9 kB; not shown to the model]',
    '[audio: audio/wav, 10 B; not shown to the model]',
    '[resource: file:///a.txt, text/plain, 5 characters of text; not shown to the model]',
    '[resource: file:///b.bin, 2.0 kB; not shown to the model]',
    '[resource link: file:///c.md (c), text/markdown]',
  ]);
});

test('isError carries the server text', () => {
  expect(mcpResultText({ content: [{ type: 'text', text: 'no such file' }], isError: true })).toEqual({ text: 'no such file', isError: true });
  expect(mcpResultText({ content: [], isError: true })).toEqual({ text: '(the server gave no error text)', isError: true });
});

const def = (annotations?: Record<string, unknown>) => ({
  name: 'delete_things',
  description: 'Deletes things',
  inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' as const, properties: { id: { type: 'number' } }, required: ['id'] },
  ...(annotations ? { annotations } : {}),
});

test('approval from the annotations: destructive and not read-only', () => {
  expect(needsApprovalFor(def({ destructiveHint: true }))).toBe(true);
  expect(needsApprovalFor(def({ destructiveHint: true, readOnlyHint: true }))).toBe(false);
  expect(needsApprovalFor(def({ destructiveHint: false }))).toBe(false);
  expect(needsApprovalFor(def())).toBe(false);
});

test('the tool offered carries the server JSON schema; a registry source can be replaced', () => {
  const connection = new McpServerConnection({ name: 'db', transport: 'stdio', command: 'none', args: [], env: {}, secrets: [] });
  const tool = mcpTool('db__delete_things', def({ destructiveHint: true }), connection);
  expect(specParameters(def())).toEqual({ type: 'object', properties: { id: { type: 'number' } }, required: ['id'] });
  expect(toolSpec(tool)).toEqual({
    name: 'db__delete_things',
    description: 'Deletes things (MCP server "db", tool "delete_things")',
    parameters: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
  });
  expect(typeof tool.needsApproval === 'function' && tool.needsApproval({})).toBe('db marks delete_things as destructive');

  const registry = new ToolRegistry([], [{ name: 'mcp:db', tools: [tool] }]);
  expect(registry.names()).toEqual(['db__delete_things']);
  registry.replace({ name: 'mcp:db', tools: [mcpTool('db__other', { ...def(), name: 'other' }, connection)] });
  expect(registry.names()).toEqual(['db__other']);
});
