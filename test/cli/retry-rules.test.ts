/**
 * Which errors the client sends an update again for. A changing update (send, configure…) only when the
 * error proves it was never accepted; a wait for an answer also when the server is unreachable.
 */
import { ServiceError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { refusedUnaccepted, repeatIdempotent } from '../../client/retry';

/** A gRPC error as Temporal's client wraps it. */
function grpc(code: number, details: string): Error {
  const cause = Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
  return new ServiceError('Workflow Update failed', { cause });
}

const refusals = {
  'over the in-flight limit': grpc(8, 'limit on number of concurrent in-flight updates has been reached (10)'),
  'aborted by the server': grpc(14, 'workflow update was aborted'),
  'aborted by a closing run': grpc(5, 'workflow update was aborted by closing workflow'),
  'a failing workflow task': grpc(9, 'Unable to perform workflow execution update due to Workflow Task in failed state.'),
  'no connection': grpc(14, 'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:7233.'),
};

const maybeAccepted = {
  'a dropped connection': grpc(14, 'Connection dropped'),
  'a timeout': new WorkflowUpdateRPCTimeoutOrCancelledError('Workflow update call timeout or cancelled', { cause: grpc(4, 'deadline exceeded') }),
};

const final = {
  'an input the agent refused': new WorkflowUpdateFailedError(
    'Workflow Update failed',
    ApplicationFailure.create({ type: 'INPUT_TOO_LARGE', message: 'Input is too large' }),
  ),
  'no such agent': grpc(5, 'workflow execution already completed'),
  'a bad argument': grpc(3, 'invalid argument'),
};

test.each(Object.entries(refusals))('%s: sent again, under the same update id', (_, err) => {
  expect(refusedUnaccepted(err)).toMatchObject({ freshId: false });
  expect(repeatIdempotent(err)).toBeDefined();
});

test('an update the worker never processed is sent again under a fresh id', () => {
  const err = new WorkflowUpdateFailedError(
    'Workflow Update failed',
    ApplicationFailure.create({ type: 'UnprocessedUpdate', message: "Workflow Update is rejected because it wasn't processed by worker." }),
  );
  expect(refusedUnaccepted(err)).toMatchObject({ freshId: true });
});

test.each(Object.entries(maybeAccepted))('%s: a changing update is not sent again, a wait is', (_, err) => {
  expect(refusedUnaccepted(err)).toBeUndefined();
  expect(repeatIdempotent(err)).toMatchObject({ freshId: false });
});

test.each(Object.entries(final))('%s: never sent again', (_, err) => {
  expect(refusedUnaccepted(err)).toBeUndefined();
  expect(repeatIdempotent(err)).toBeUndefined();
});
