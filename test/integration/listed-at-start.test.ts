/**
 * An agent started without a first input is listed `WaitingInput` from its start, and its first rest
 * writes no search attribute (the start's listing already says so): its history has no search-attribute
 * write before its first turn (nor Temporal's TemporalChangeVersion: a livecontext worker's run asks for
 * no patch, see workflows/run-changes-by-build.ts). The recorded history replays.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { listedAtStart } from '../../client/agent-start';
import { MODEL_ATTRIBUTE, PROVIDER_ATTRIBUTE, RUN_STATE_ATTRIBUTE } from '../../workflows/messages';
import { maybeRecordHistory } from '../support/record-history';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

jest.setTimeout(120_000);

const { t, taskQueue } = useTestConnection('listed-at-start');

type Event = temporal.api.history.v1.IHistoryEvent;
/** The search attributes each write of `events` set, by name. */
const writes = (events: Event[]) => events.flatMap((e) => Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}));

test('what a new agent is listed as at its start: waiting for input without a first input, working with one or from a snapshot', () => {
  expect(listedAtStart({ config: { model: 'demo:offline' } })).toBe('WaitingInput');
  expect(listedAtStart({ config: { model: 'demo:offline' }, initialInput: { text: 'go' } })).toBe('Working');
  expect(listedAtStart({ snapshot: {} as never, imported: true })).toBe('Working');
});

test('an agent started without input is listed WaitingInput at once, and its first rest writes no search attribute', async () => {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  const agentId = uniqueId('listed');
  // Listed before any worker has run it.
  const handle = await t.agents.start(agentId, { model: 'demo:offline' });
  const atStart = (await handle.describe()).typedSearchAttributes;
  expect([atStart.get(RUN_STATE_ATTRIBUTE), atStart.get(MODEL_ATTRIBUTE), atStart.get(PROVIDER_ATTRIBUTE)]).toEqual(['WaitingInput', 'demo:offline', 'demo']);

  await withWorker({ taskQueue, workspaceRoot }, async () => {
    await expect(t.agents.ask(agentId, 'hello')).resolves.toMatchObject({ status: 'answered', inputSeq: 1 });
    await expect(t.agents.ask(agentId, 'hello again')).resolves.toMatchObject({ status: 'answered', inputSeq: 2 });
    expect((await handle.describe()).typedSearchAttributes.get(RUN_STATE_ATTRIBUTE)).toBe('WaitingInput');
    // Two plain turns and the rest before them: no write at all.
    expect(writes((await handle.fetchHistory()).events ?? [])).toEqual([]);

    // A turn past its first model call is still listed Working while it runs, and its rest is written.
    await expect(t.agents.ask(agentId, 'wait 1')).resolves.toMatchObject({ status: 'answered', inputSeq: 3 });
    const all = writes((await handle.fetchHistory()).events ?? []);
    expect(all.filter((k) => k === RUN_STATE_ATTRIBUTE.name)).toHaveLength(2); // Working, then WaitingInput
    expect((await handle.describe()).typedSearchAttributes.get(RUN_STATE_ATTRIBUTE)).toBe('WaitingInput');

    await t.agents.stop(agentId);
    await handle.result();
    await maybeRecordHistory(handle, 'listed-at-start_v1.json');
  });
});
