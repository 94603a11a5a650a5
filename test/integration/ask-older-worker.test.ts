/**
 * A client with the one-update `ask` against workers of the code before it (the commit below, taken
 * from this repository's git history and bundled as a worker would run it): the old worker refuses the
 * unknown update before accepting it, and the client asks with `sendInput` + `waitForAnswer` instead —
 * one input, one answer. When the new code takes the agent over, the same client asks in one update.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

jest.setTimeout(180_000);

/** The last commit whose agent workflow has no `ask` update. */
const BEFORE_ASK = '2c5b8bf';
const repo = path.resolve(__dirname, '../..');
const hasCommit = (() => {
  try {
    execFileSync('git', ['-C', repo, 'cat-file', '-e', `${BEFORE_ASK}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasCommit) console.warn(`ask-older-worker: skipped, commit ${BEFORE_ASK} is not in this checkout's git history (a shallow clone or a package).`);

const { t, taskQueue } = useTestConnection('older-worker');

const updateNames = async (agentId: string) =>
  ((await t.agents.handle(agentId).fetchHistory()).events ?? [])
    .filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)
    .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name);

(hasCommit ? test : test.skip)('an older worker: ask falls back to sendInput + waitForAnswer; the new worker: one ask update', async () => {
  const old = mkdtempSync(path.join(tmpdir(), 'lc-before-ask-'));
  execFileSync('bash', ['-c', `git -C "${repo}" archive ${BEFORE_ASK} agent workflows common activities | tar -x -C "${old}"`]);
  symlinkSync(path.join(repo, 'node_modules'), path.join(old, 'node_modules'));
  const oldBundle = await bundleWorkflowCode({
    workflowsPath: path.join(old, 'workflows/index.ts'),
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never,
  });
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  const agentId = uniqueId('upgraded');

  await withWorker({ taskQueue, workspaceRoot, workflowBundle: { code: oldBundle.code } }, async () => {
    await t.agents.start(agentId, { model: 'demo:offline' });
    await expect(t.agents.ask(agentId, 'one')).resolves.toMatchObject({ status: 'answered', inputSeq: 1 });
  });
  expect(await updateNames(agentId)).toEqual(['sendInput', 'waitForAnswer']);

  await withWorker({ taskQueue, workspaceRoot }, async () => {
    await expect(t.agents.ask(agentId, 'two')).resolves.toMatchObject({ status: 'answered', inputSeq: 2 });
    expect((await t.agents.history(agentId)).filter((e) => e.kind === 'model_input')).toHaveLength(2);
  });
  expect(await updateNames(agentId)).toEqual(['sendInput', 'waitForAnswer', 'ask']);
});
