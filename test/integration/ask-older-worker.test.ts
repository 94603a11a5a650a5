/**
 * A client with the one-update `ask` against workers of the code before it (the commit below, taken
 * from this repository's git history and bundled as a worker would run it): the old worker refuses the
 * unknown update before accepting it, and the client asks with `sendInput` + `waitForAnswer` instead —
 * one input, one answer. When the new code takes the agent over, the same client asks in one update.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleOfCommit, hasCommit } from '../support/older-code';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

jest.setTimeout(180_000);

/** The last commit whose agent workflow has no `ask` update. */
const BEFORE_ASK = '2c5b8bf';

const { t, taskQueue } = useTestConnection('older-worker');

const updateNames = async (agentId: string) =>
  ((await t.agents.handle(agentId).fetchHistory()).events ?? [])
    .filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)
    .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name);

(hasCommit(BEFORE_ASK, 'ask-older-worker') ? test : test.skip)(
  'an older worker: ask falls back to sendInput + waitForAnswer; the new worker: one ask update',
  async () => {
    const oldBundle = await bundleOfCommit(BEFORE_ASK);
    const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
    const agentId = uniqueId('upgraded');

    await withWorker({ taskQueue, workspaceRoot, workflowBundle: oldBundle }, async () => {
      await t.agents.start(agentId, { model: 'demo:offline' });
      await expect(t.agents.ask(agentId, 'one')).resolves.toMatchObject({ status: 'answered', inputSeq: 1 });
    });
    expect(await updateNames(agentId)).toEqual(['sendInput', 'waitForAnswer']);

    await withWorker({ taskQueue, workspaceRoot }, async () => {
      await expect(t.agents.ask(agentId, 'two')).resolves.toMatchObject({ status: 'answered', inputSeq: 2 });
      expect((await t.agents.history(agentId)).filter((e) => e.kind === 'model_input')).toHaveLength(2);
    });
    expect(await updateNames(agentId)).toEqual(['sendInput', 'waitForAnswer', 'ask']);
  },
);
