/**
 * An old agent on a real dev server: imported with 200,000 entries (about 65 MB of history), it answers;
 * its worker is SIGKILLed and replaced, and the next turn answers within the bound below; `history`
 * pages through every entry; export → import gives back the same entries. Before the archive, such an
 * agent took 20+ s to come back after a restart, or never came back (its first workflow task passed
 * Temporal's 5 s limit decoding and checking the whole history).
 */
import type { AgentSnapshot, HistoryEntry } from '../../agent/index';
import { useChildWorkerFile } from '../support/child-worker';
import { uniqueId } from '../support/temporal';

const file = useChildWorkerFile('old-agent');
const t = new Proxy({} as typeof file.t, { get: (_, key) => Reflect.get(file.t, key, file.t) });

const TURNS = 100_000; // two entries each
/** What the test allows the first turn after a worker restart; it scales with the working set, not the age. */
const AFTER_RESTART_BOUND_MS = 20_000;

/** An agent that had TURNS turns with the echo model, as an export would write it. */
function oldAgent(): AgentSnapshot {
  const entries: HistoryEntry[] = [];
  const start = Date.parse('2026-01-01T00:00:00Z');
  const at = (seq: number) => new Date(start + seq * 1000).toISOString();
  const invocation = { providerId: 'scripted', specification: 'scripted', model: 'echo' };
  for (let turn = 1; turn <= TURNS; turn++) {
    const fact = `turn ${turn}: the parcel for flat ${turn % 97} goes to the ${turn % 2 ? 'left' : 'right'} door, said the caretaker on duty that day`;
    entries.push({ kind: 'model_input', seq: 2 * turn - 1, timestamp: at(2 * turn - 1), inputSeq: turn, sections: [{ title: 'Input', content: fact }] });
    entries.push({ kind: 'model_output', seq: 2 * turn, timestamp: at(2 * turn), contents: [`echo: ${fact}`], toolCalls: [], invocation });
  }
  return {
    format: 'livecontext.agent-snapshot',
    version: 1,
    config: { model: 'scripted:echo' },
    entries,
    nextSeq: 2 * TURNS + 1,
    pendingToolResults: [],
    inbox: [],
    nextInputSeq: TURNS + 1,
    consumedInputSeq: TURNS,
    approvals: {},
    widgets: { memory_notebook: { content: '' } },
  };
}

/** Every entry by paging (`history` as the CLI and REST page it), checked in order without holding them. */
async function pageAll(agentId: string): Promise<{ count: number; last: number }> {
  let cursor: number | null = 0;
  let count = 0;
  let last = 0;
  while (cursor !== null) {
    const page = await t.agents.entries(agentId, { afterSeq: cursor });
    for (const e of page.entries) {
      if (e.seq !== last + 1) throw new Error(`entry #${e.seq} follows #${last}`);
      last = e.seq;
      count++;
    }
    cursor = page.nextAfterSeq;
  }
  return { count, last };
}

test('an agent of 200,000 entries answers, comes back after a worker SIGKILL, pages and round-trips', async () => {
  await file.restart();
  const agentId = uniqueId('old');
  const snapshot = oldAgent();
  await t.agents.restore(agentId, snapshot);
  const carried = await t.agents.snapshot(agentId);
  expect(carried.archive!.entries + carried.entries.length).toBe(2 * TURNS);
  expect(await t.agents.ask(agentId, 'hello after import')).toMatchObject({ status: 'answered' });
  const youngId = uniqueId('young'); // for comparison: an agent of one turn on the same worker
  await t.agents.start(youngId, { model: 'scripted:echo' });
  expect(await t.agents.ask(youngId, 'hello')).toMatchObject({ status: 'answered' });

  await file.restart(); // SIGKILL, then a new worker
  const timed = async (id: string) => {
    const began = Date.now();
    const outcome = await Promise.race([
      t.agents.ask(id, 'hello after restart'),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`no answer within ${AFTER_RESTART_BOUND_MS} ms of the restart`)), AFTER_RESTART_BOUND_MS).unref(),
      ),
    ]);
    expect(outcome).toMatchObject({ status: 'answered' });
    return Date.now() - began;
  };
  const [oldMs, youngMs] = await Promise.all([timed(agentId), timed(youngId)]);
  // Most of either is Temporal noticing the dead worker (its sticky queue's timeout), not the agent's age.
  console.log(`first turn after the restart: ${oldMs} ms for the old agent, ${youngMs} ms for a young one`);
  await t.agents.stop(youngId);

  expect(await pageAll(agentId)).toEqual({ count: 2 * TURNS + 4, last: 2 * TURNS + 4 });

  const exported = await t.agents.export(agentId);
  let text = '';
  for await (const piece of exported.text) text += piece;
  const file1 = JSON.parse(text) as AgentSnapshot;
  expect(file1.entries.length).toBe(2 * TURNS + 4);
  expect(file1.entries.slice(0, 2 * TURNS)).toEqual(snapshot.entries);
  const copyId = uniqueId('old-copy');
  await t.agents.restore(copyId, file1);
  const again = await t.agents.export(copyId);
  let text2 = '';
  for await (const piece of again.text) text2 += piece;
  const file2 = JSON.parse(text2) as AgentSnapshot;
  expect(file2.entries).toEqual(file1.entries);
  expect({ ...file2, sourceAgentId: undefined }).toEqual({ ...file1, sourceAgentId: undefined });
  await t.agents.stop(copyId);
  await t.agents.stop(agentId);
}, 600_000);
