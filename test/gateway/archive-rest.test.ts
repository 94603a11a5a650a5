/**
 * The REST API reads an agent's archive (ageless agents): an agent past its working set has its oldest
 * turns sealed into segments, and still `GET /history` pages every entry in order, `GET /export` streams
 * every entry as a version-1 snapshot, and `POST /agents/import` of that export gives an agent with the
 * same history, its older turns sealed again.
 */
import type { AgentSnapshot, HistoryEntry } from '../../agent/index';
import { uniqueId } from '../support/temporal';
import { useRestGateway } from './rest-support';

const rest = useRestGateway('archive-rest');

/** Every entry through `GET /history`, page by page. */
async function pages(agentId: string, limit: number): Promise<{ entries: HistoryEntry[]; pages: number }> {
  const entries: HistoryEntry[] = [];
  let after: number | null = 0;
  let count = 0;
  while (after !== null) {
    const page = await rest.gw.request('GET', `/agents/${agentId}/history?after=${after}&limit=${limit}`);
    expect(page.status).toBe(200);
    const body = page.body as { entries: HistoryEntry[]; nextAfter: number | null };
    entries.push(...body.entries);
    after = body.nextAfter;
    count++;
  }
  return { entries, pages: count };
}

test('history pages, export and import reach the archived entries', async () => {
  const agentId = uniqueId('archived');
  expect((await rest.gw.request('POST', '/agents', { agentId, model: 'scripted:echo', workingSetBytes: 16 * 1024 })).status).toBe(201);
  for (let i = 0; i < 12; i++) {
    const sent = await rest.gw.request('POST', `/agents/${agentId}/input?wait=1`, { text: `note ${i}: ${'lorem ipsum '.repeat(200)}` });
    expect(sent).toMatchObject({ status: 200, body: { outcome: { status: 'answered' } } });
  }
  const snapshot = await rest.t.agents.snapshot(agentId);
  expect(snapshot.archive!.throughSeq).toBeGreaterThan(10);

  const { entries, pages: count } = await pages(agentId, 5);
  expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
  expect(entries).toHaveLength(24);
  expect(count).toBeGreaterThanOrEqual(5); // a page may end early where the archive ends

  const exported = await rest.gw.request('GET', `/agents/${agentId}/export`);
  expect(exported.status).toBe(200);
  const file = exported.body as AgentSnapshot;
  expect(file).toMatchObject({ version: 1, sourceAgentId: agentId });
  expect(file.entries).toEqual(entries);

  const copyId = uniqueId('archived-copy');
  expect((await rest.gw.request('POST', '/agents/import', { snapshot: file, agentId: copyId })).status).toBeLessThan(300);
  expect((await rest.t.agents.snapshot(copyId)).archive).toBeDefined();
  expect((await pages(copyId, 500)).entries).toEqual(entries);
});
