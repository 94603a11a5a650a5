/**
 * The reference filesystem MCP server (npm, over stdio) drives agent turns: the agent writes a file in
 * its allowed folder — write_file is marked destructive, so it waits for approval — and reads it back;
 * a path outside the allowed folder comes back as a Failed result with the server's words.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import type { ToolResultsEntry } from '../../agent/index';
import { callsInput, callsScript } from '../fixtures/calls-script';
import { filesystemServer } from '../support/mcp-servers';
import { uniqueId, withWorker, waitingForApproval } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('mcp-fs');

const lastResults = async (agentId: string) => {
  const entries = (await t.agents.history(agentId)).filter((e) => e.kind === 'tool_results') as ToolResultsEntry[];
  return entries[entries.length - 1].results;
};

test('write (after approval), read, and a refused path outside the allowed folder', async () => {
  const allowed = mkdtempSync(path.join(tmpdir(), 'lc-mcp-allowed-'));
  const outside = mkdtempSync(path.join(tmpdir(), 'lc-mcp-outside-'));
  const file = path.join(allowed, 'note.txt');
  const scripted = new ScriptedModelProvider({ calls: callsScript });
  const models = [scripted];
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { mcpServers: { fs: filesystemServer(allowed) } } }, async () => {
    const agentId = uniqueId('mcp-fs');
    await t.agents.start(agentId, { model: 'scripted:calls', tools: ['fs__*'] });

    // The model is offered the server's tools under namespaced names, with the server's JSON schema.
    const { inputSeq } = await t.agents.send(agentId, callsInput([{ name: 'fs__write_file', args: { path: file, content: 'hello from MCP' } }]));
    const waiting = await waitingForApproval(t.agents, agentId, 60_000, 'the approval request for the destructive write_file');
    expect(waiting.awaitingApproval[0]).toMatchObject({ toolName: 'fs__write_file', reason: 'fs marks write_file as destructive' });
    await t.agents.decide(agentId, { toolCallId: waiting.awaitingApproval[0].toolCallId, approved: true });
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
    expect((await lastResults(agentId))[0]).toMatchObject({ status: 'Success', result: expect.stringContaining('Successfully wrote') });
    expect(readFileSync(file, 'utf8')).toBe('hello from MCP');

    await expect(
      t.agents.ask(
        agentId,
        callsInput([
          { name: 'fs__read_text_file', args: { path: file } },
          { name: 'fs__read_text_file', args: { path: path.join(outside, 'x.txt') } },
          { name: 'fs__list_allowed_directories', args: {} },
        ]),
      ),
    ).resolves.toMatchObject({ status: 'answered' });
    const [read, refused, listed] = await lastResults(agentId);
    // read_text_file answers with structuredContent, which the model reads as JSON text.
    expect(read).toMatchObject({ status: 'Success', metadata: { mcp_server: 'fs' } });
    expect(JSON.parse(read.result)).toEqual({ content: 'hello from MCP' });
    expect(refused.status).toBe('Failed');
    expect(refused.result).toMatch(/^fs__read_text_file failed: .*Access denied - path outside allowed directories/);
    expect(listed.result).toContain(allowed);
    expect((await t.agents.handle(agentId).describe()).status.name).toBe('RUNNING');

    // What the model was offered: the server's tools (and only them, by `fs__*`), with its JSON schemas.
    const specs = scripted.requests[0].toolSpecs.filter((s) => s.name.startsWith('fs__'));
    expect(specs.map((s) => s.name)).toEqual(expect.arrayContaining(['fs__read_text_file', 'fs__write_file', 'fs__list_allowed_directories']));
    expect(scripted.requests[0].toolSpecs.map((s) => s.name)).not.toContain('write_file');
    const write = specs.find((s) => s.name === 'fs__write_file')!;
    expect(write.description).toContain('(MCP server "fs", tool "write_file")');
    expect(write.parameters).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    });
    expect(write.parameters).not.toHaveProperty('$schema');
  });
});
