/** The session id /mcp gives at initialize carries the client's name and whether it takes form elicitation. */
import { mcpClientToken, readMcpClientToken } from '../../gateway/mcp/mcp-client-token';

test('form elicitation is read from {form: {}} and from the older {}; URL-only is not form', () => {
  expect(readMcpClientToken(mcpClientToken({ capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'claude' } }))).toEqual({
    name: 'claude',
    elicitation: true,
  });
  expect(readMcpClientToken(mcpClientToken({ capabilities: { elicitation: {} } }))).toEqual({ elicitation: true });
  expect(readMcpClientToken(mcpClientToken({ capabilities: { elicitation: { url: {} } } }))).toEqual({ elicitation: false });
  expect(readMcpClientToken(mcpClientToken({ capabilities: {} }))).toEqual({ elicitation: false });
});

test('each id is unique, and ids the gateway did not give read as nothing', () => {
  const init = { capabilities: { elicitation: {} }, clientInfo: { name: 'x' } };
  expect(mcpClientToken(init)).not.toBe(mcpClientToken(init));
  expect(readMcpClientToken(undefined)).toBeUndefined();
  expect(readMcpClientToken('3f1c-some-other-session')).toBeUndefined();
  expect(readMcpClientToken('lc1.abc.%%%not-base64-json')).toBeUndefined();
});
