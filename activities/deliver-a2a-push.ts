/**
 * The delivery of one A2A push notification (see agent/a2a-push.ts): a POST of the task's status-update
 * event (A2A 1.0 JSON, as the SDK's V1 serializer writes it) to the caller's webhook, signed with the
 * worker's push secret, with the caller's own credentials unsealed here. Temporal retries it with
 * backoff (workflows/activity-options.ts); a 4xx other than 408/429 is final; every attempt carries the
 * same delivery id, by which the receiver dedupes.
 */
import { Role, StreamResponse, TaskState } from '@a2a-js/sdk';
import { ApplicationFailure } from '@temporalio/common';
import type { A2aPushDelivery } from '../agent/index';
import { DELIVERY_HEADER, PUSH_SECRET_ENV, SIGNATURE_HEADER, pushSecret, signBody, unsealCredentials } from '../common/push-seal';

const TIMEOUT_MS = 10_000;

export async function deliverA2aPush(d: A2aPushDelivery): Promise<{ status: number }> {
  const secret = pushSecret();
  if (!secret)
    throw ApplicationFailure.nonRetryable(`The worker has no ${PUSH_SECRET_ENV}: push notifications are not signed, so none is sent.`, 'A2aPushNoSecret');
  const taskId = `turn-${d.inputSeq}@${d.agentId}`;
  const message =
    d.message === undefined
      ? undefined
      : {
          messageId: `${d.deliveryId}/message`,
          contextId: d.agentId,
          taskId,
          role: Role.ROLE_AGENT,
          parts: [{ content: { $case: 'text' as const, value: d.message }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        };
  const event: StreamResponse = {
    payload: {
      $case: 'statusUpdate',
      value: {
        taskId,
        contextId: d.agentId,
        status: { state: TaskState[d.state], message, timestamp: d.timestamp },
        metadata: { deliveryId: d.deliveryId, inputSeq: d.inputSeq },
      },
    },
  };
  const body = JSON.stringify(StreamResponse.toJSON(event));
  const headers: Record<string, string> = {
    'content-type': 'application/a2a+json',
    [DELIVERY_HEADER]: d.deliveryId,
    [SIGNATURE_HEADER]: signBody(secret, body),
  };
  if (d.sealed) {
    let creds;
    try {
      creds = unsealCredentials(secret, d.sealed);
    } catch (err) {
      throw ApplicationFailure.nonRetryable(
        `The webhook's credentials cannot be unsealed (${(err as Error).message}): was ${PUSH_SECRET_ENV} changed?`,
        'A2aPushSeal',
      );
    }
    if (creds.token) headers['X-A2A-Notification-Token'] = creds.token;
    if (creds.authentication) headers.authorization = `${creds.authentication.scheme} ${creds.authentication.credentials}`;
  }
  let res: Response;
  try {
    res = await fetch(d.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
  } catch (err) {
    throw ApplicationFailure.retryable(`POST ${d.url}: ${(err as Error).message}`, 'A2aPushUnreachable');
  }
  await res.body?.cancel().catch(() => undefined);
  if (res.ok) return { status: res.status };
  const final = res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
  const failure = `POST ${d.url}: HTTP ${res.status}`;
  throw final ? ApplicationFailure.nonRetryable(failure, 'A2aPushRefused') : ApplicationFailure.retryable(failure, 'A2aPushFailed');
}
