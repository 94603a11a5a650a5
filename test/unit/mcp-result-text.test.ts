/** MCP tool results as the model reads them, and the tool an MCP tool becomes (spec, approval). */
import { McpResultError, mcpResultText, redactMcpResult } from '../../activities/mcp/result-text';
import { mcpTool, needsApprovalFor, specParameters } from '../../activities/mcp/mcp-tool';
import { McpServerConnection } from '../../activities/mcp/server-connection';
import { toolSpec } from '../../activities/tools/define-tool';
import { ToolRegistry } from '../../activities/tools/registry';

test('text blocks are joined', () => {
  expect(
    mcpResultText({
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    }),
  ).toEqual({ text: 'one\ntwo', isError: false });
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

test('a malformed block says what is wrong with it, and the rest of the result stands', () => {
  const r = mcpResultText({
    content: [
      { type: 'text', text: 'the chart:' },
      { type: 'image', mimeType: 'image/png', data: 'this is *not* base64!' },
      { type: 'hologram', data: 'x' },
      { type: 'text' },
    ],
  });
  expect(r).toEqual({
    text: [
      'the chart:',
      '[image content the server sent is malformed (content[1]: data: Invalid Base64 string); left out]',
      '[hologram content the client does not know (content[2]); not shown to the model]',
      '[text content the server sent is malformed (content[3]: text: Invalid input: expected string, received undefined); left out]',
    ].join('\n'),
    isError: false,
  });
  expect(mcpResultText({ content: [], structuredContent: [1, 2] }).text).toBe('[structuredContent the server sent is not a JSON object; left out]');
});

test('a result that is not an MCP result is refused, saying what it is', () => {
  expect(() => mcpResultText(null)).toThrow(new McpResultError('its result is not an MCP tool result (a JSON object), but null'));
  expect(() => mcpResultText({ content: 'hello' })).toThrow('its result\'s "content" is not a list (string)');
  expect(mcpResultText({ toolResult: { a: 1 } })).toEqual({ text: '{"a":1}', isError: false });
});

test('secrets are cut out of a result before it is read: split between text blocks, inside structured content', () => {
  const secrets = [
    { name: 'API_TOKEN', value: 'ghp_Xq7RbN2kLm9PzT4vWc8Y' },
    { name: 'SA_JSON', value: '{"private_key":"-----BEGIN\\nMIIEvQ\\n"}' },
  ];
  const split = redactMcpResult(
    {
      content: [
        { type: 'text', text: 'part one ghp_Xq7RbN2k' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'text', text: 'Lm9PzT4vWc8Y end' },
      ],
    },
    secrets,
  );
  expect(mcpResultText(split).text).toBe('part one [redacted $API_TOKEN]\n[image: image/png, 3 B; not shown to the model]\n end');
  const structured = redactMcpResult({ content: [], structuredContent: { config: { credentials: secrets[1].value, nested: [secrets[0].value] } } }, secrets);
  expect(mcpResultText(structured).text).toBe('{"config":{"credentials":"[redacted $SA_JSON]","nested":["[redacted $API_TOKEN]"]}}');
});
