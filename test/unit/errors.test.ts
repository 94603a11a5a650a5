/**
 * The error hierarchy: every error livecontext raises on purpose is a LivecontextError with a stable
 * code, recognisable by class or by `errorCode` — also after Temporal wrapped it on its way to a client.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { PathEscapeError, resolveInWorkspace } from '../../activities/tools/workspace-path';
import {
  HistoryValidationError,
  InfrastructureError,
  InputRejectedError,
  LivecontextError,
  SnapshotError,
  StreamProtocolError,
  errorCode,
} from '../../agent/errors';
import { UserError } from '../../common/user-error';
import { NoWorkerError } from '../../client/worker-status';
import { agentWorkflow, workerInfoWorkflow } from '../../workflows/index';
import { TASK_QUEUE, WORKFLOW_TYPE } from '../../workflows/messages';
import { connectSettings } from '../../common/connection';

const status = { namespace: 'default', taskQueue: 'q', workflowPollers: 0, activityPollers: 0, polling: false, lastPolledMsAgo: null };

test.each([
  ['HistoryValidationError', new HistoryValidationError('EMPTY_INPUT', 'm'), 'EMPTY_INPUT'],
  ['InputRejectedError', new InputRejectedError('INPUT_TOO_LARGE', 'm'), 'INPUT_TOO_LARGE'],
  ['SnapshotError', new SnapshotError('BAD_SNAPSHOT', 'm'), 'BAD_SNAPSHOT'],
  ['StreamProtocolError', new StreamProtocolError('DELTA_AFTER_END', 'm'), 'DELTA_AFTER_END'],
  ['InfrastructureError', new InfrastructureError('UNDECODABLE_RESULT', 'm'), 'UNDECODABLE_RESULT'],
  ['NoWorkerError', new NoWorkerError(status), 'NO_WORKER'],
  ['UserError', new UserError('Missing <agent-id>.'), 'USER_ERROR'],
  ['PathEscapeError', new PathEscapeError('"../x" leaves the workspace.'), 'PATH_ESCAPE'],
])('%s is a LivecontextError with a code', (name, err, code) => {
  expect(err).toBeInstanceOf(LivecontextError);
  expect(err).toBeInstanceOf(Error);
  expect(err.name).toBe(name);
  expect(err.code).toBe(code);
  expect(errorCode(err)).toBe(code);
  expect(String(err)).toMatch(new RegExp(`^${name}: `));
});

test('messages users and tests rely on are unchanged', () => {
  expect(new NoWorkerError(status).message).toBe(
    'No worker is polling the task queue q in namespace default: start one with `livecontext worker` (or `npm start`).',
  );
  expect(
    new NoWorkerError({ ...status, lastPolledMsAgo: 2_000 }, 'Agent "a" did not answer a query within 1.4 s, and no worker took a task from its task queue')
      .message,
  ).toBe(
    'Agent "a" did not answer a query within 1.4 s, and no worker took a task from its task queue. No worker is polling the task queue q in namespace default (a worker last polled it 2 s ago): start one with `livecontext worker` (or `npm start`).',
  );
});

test('a tool given a path out of its workspace fails with PATH_ESCAPE', async () => {
  const err = await resolveInWorkspace(process.cwd(), '/etc/passwd').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PathEscapeError);
  expect(errorCode(err)).toBe('PATH_ESCAPE');
});

test('errorCode finds the code through Temporal failures and causes, and nothing else', () => {
  // What a client gets when the workflow refuses an update: the code is the ApplicationFailure's type.
  const refused = new WorkflowUpdateFailedError(
    'Workflow Update failed',
    ApplicationFailure.create({ type: 'INPUT_TOO_LARGE', message: 'Input is too large' }),
  );
  expect(errorCode(refused)).toBe('INPUT_TOO_LARGE');
  expect(errorCode(new Error('wrapped', { cause: new SnapshotError('INCONSISTENT_SNAPSHOT', 'm') }))).toBe('INCONSISTENT_SNAPSHOT');
  expect(errorCode(new Error('plain'))).toBeUndefined();
  expect(errorCode('a string')).toBeUndefined();
  expect(errorCode(undefined)).toBeUndefined();
  const loop: Error & { cause?: unknown } = new Error('a');
  loop.cause = loop;
  expect(errorCode(loop)).toBeUndefined();
});

test('one source for names: the workflow types and the task queue', () => {
  expect(agentWorkflow.name).toBe(WORKFLOW_TYPE);
  expect(workerInfoWorkflow.name).toBe('workerInfoWorkflow');
  const saved = process.env.LIVECONTEXT_TASK_QUEUE;
  try {
    delete process.env.LIVECONTEXT_TASK_QUEUE;
    expect(connectSettings().taskQueue).toBe(TASK_QUEUE);
    process.env.LIVECONTEXT_TASK_QUEUE = 'other-queue';
    expect(connectSettings().taskQueue).toBe('other-queue');
    expect(connectSettings({ taskQueue: 'given' }).taskQueue).toBe('given');
  } finally {
    if (saved === undefined) delete process.env.LIVECONTEXT_TASK_QUEUE;
    else process.env.LIVECONTEXT_TASK_QUEUE = saved;
  }
});
