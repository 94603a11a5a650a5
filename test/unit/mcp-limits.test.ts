/**
 * The bounds on what an MCP server brings: a stdio stream's oversized message is skipped (its request
 * gets an error in its place) without losing the messages around it; a tool's input schema past the
 * depth or size bound is named; the SDK still has the reader this replaces.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BoundedReadBuffer, isMessageTooLarge } from '../../activities/mcp/bounded-read-buffer';
import { MAX_INPUT_SCHEMA_DEPTH, inputSchemaProblem } from '../../activities/mcp/tool-limits';

function readAll(buffer: BoundedReadBuffer): unknown[] {
  const out: unknown[] = [];
  for (let m = buffer.readMessage(); m; m = buffer.readMessage()) out.push(m);
  return out;
}

describe('BoundedReadBuffer', () => {
  const line = (m: unknown) => `${JSON.stringify(m)}\n`;
  const big = 'x'.repeat(5000);

  test('messages split across chunks, several in one chunk, CRLF', () => {
    const b = new BoundedReadBuffer(1000);
    const text = line({ jsonrpc: '2.0', id: 1, result: {} }) + line({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }).replace('\n', '\r\n');
    b.append(Buffer.from(text.slice(0, 10)));
    expect(b.readMessage()).toBeNull();
    b.append(Buffer.from(text.slice(10)));
    expect(readAll(b)).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ]);
  });

  test.each([
    ['id last (the TypeScript SDK)', { result: { content: [{ type: 'text', text: big }] }, jsonrpc: '2.0', id: 7 }, 7],
    ['id first (Python servers)', { jsonrpc: '2.0', id: 'req-7', result: { content: [{ type: 'text', text: big, id: 3 }] } }, 'req-7'],
  ])('an oversized response, %s: its request gets an error; the next message is read', (_what, message, id) => {
    const seen: Array<[number, boolean]> = [];
    const b = new BoundedReadBuffer(1000, (bytes, answered) => seen.push([bytes, answered]));
    const text = line(message) + line({ jsonrpc: '2.0', id: 8, result: { ok: true } });
    for (let i = 0; i < text.length; i += 300) b.append(Buffer.from(text.slice(i, i + 300)));
    const [error, next] = readAll(b) as Array<{ id: unknown; error?: { data: unknown } }>;
    expect(error.id).toBe(id);
    expect(isMessageTooLarge(error.error?.data)).toBe(true);
    expect(error.error?.data).toMatchObject({ bytes: line(message).length - 1, limit: 1000 });
    expect(next).toEqual({ jsonrpc: '2.0', id: 8, result: { ok: true } });
    expect(seen).toEqual([[line(message).length - 1, true]]);
  });

  test('an oversized request or notification from the server is skipped, answering nothing in its place', () => {
    const seen: boolean[] = [];
    const b = new BoundedReadBuffer(1000, (_bytes, answered) => seen.push(answered));
    b.append(Buffer.from(line({ method: 'sampling/createMessage', params: { big }, jsonrpc: '2.0', id: 0 }) + line({ jsonrpc: '2.0', id: 2, result: {} })));
    expect(readAll(b)).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
    expect(seen).toEqual([false]);
  });
});

test("a tool's input schema: too deep or too large is named; an ordinary one passes", () => {
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 5000; i++) deep = { type: 'object', properties: { next: deep } };
  expect(inputSchemaProblem(deep)).toBe(`its input schema is nested more than ${MAX_INPUT_SCHEMA_DEPTH} levels deep`);
  const wide = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`field_${i}`, { type: 'string', description: 'a field' }])),
  };
  expect(inputSchemaProblem(wide)).toMatch(/^its input schema is \d+ KiB as JSON \(at most 64 KiB\)$/);
  const ordinary = {
    type: 'object',
    properties: {
      path: { type: 'string' },
      edits: { type: 'array', items: { type: 'object', properties: { oldText: { type: 'string' }, newText: { type: 'string' } } } },
    },
  };
  expect(inputSchemaProblem(ordinary)).toBeUndefined();
});

test('the SDK stdio transport still reads through the buffer this replaces', () => {
  // server-connection.ts swaps `_readBuffer`; if the SDK renamed it, oversized answers would close the connection again.
  expect(new StdioClientTransport({ command: 'true' })).toHaveProperty('_readBuffer');
});
