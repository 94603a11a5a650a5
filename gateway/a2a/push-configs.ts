/**
 * A2A push notification configs of an agent's tasks, kept in the agent (see agent/a2a-push.ts): the
 * gateway checks the URL (http(s) only), seals the caller's token and Authorization credentials with
 * `LIVECONTEXT_A2A_PUSH_SECRET` before they reach the agent (so its history holds them only sealed), and
 * sends the change as the agent's `setA2aPush` update. The worker's delivery activity signs and sends.
 */
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { A2aPushChange, A2aPushConfig } from '../../agent/index';
import type { AgentClient } from '../../client/agent-client';
import { PUSH_SECRET_ENV, type PushCredentials, pushSecret, sealCredentials, unsealCredentials } from '../../common/push-seal';
import { setA2aPushUpdate } from '../../workflows/messages';
import { toHttpError } from '../http-errors';
import { type TurnRef, taskIdOf } from './task-id';

const DEFAULT_ID = 'default';

function secretOrRefuse(): string {
  const secret = pushSecret();
  if (!secret)
    throw new PushNotificationNotSupportedError(
      `Push notifications are off: set ${PUSH_SECRET_ENV} for the gateway and the worker (it signs each notification and seals the caller's token).`,
    );
  return secret;
}

async function change(agents: AgentClient, agentId: string, args: A2aPushChange): Promise<void> {
  try {
    await agents.handle(agentId).executeUpdate(setA2aPushUpdate, { args: [args] });
  } catch (err) {
    const http = toHttpError(err, agentId);
    if (http.status === 404) throw new TaskNotFoundError(http.message);
    if (http.status >= 400 && http.status < 500) throw new RequestMalformedError(`${http.code}: ${http.message}`);
    throw err;
  }
}

/** Sets the config (replacing one of the same id for the task); returns it as A2A shows it. */
export function setPushConfig(agents: AgentClient, ref: TurnRef, params: TaskPushNotificationConfig, by: string): Promise<TaskPushNotificationConfig> {
  return checkPushConfig(params)(agents, ref, by);
}

/** Checks a config before anything is sent (a bad one refused before a message starts a turn); returns how to set it. */
export function checkPushConfig(params: TaskPushNotificationConfig) {
  const secret = secretOrRefuse();
  let url: URL;
  try {
    url = new URL(params.url);
  } catch {
    throw new RequestMalformedError(`A push notification config needs a webhook URL; "${params.url}" is not one.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RequestMalformedError(`A push notification URL must be http:// or https://, not ${url.protocol}//.`);
  const creds: PushCredentials = {
    ...(params.token ? { token: params.token } : {}),
    ...(params.authentication?.credentials
      ? { authentication: { scheme: params.authentication.scheme || 'Bearer', credentials: params.authentication.credentials } }
      : {}),
  };
  const id = params.id || DEFAULT_ID;
  const sealed = Object.keys(creds).length ? { sealed: sealCredentials(secret, creds) } : {};
  return async (agents: AgentClient, ref: TurnRef, by: string): Promise<TaskPushNotificationConfig> => {
    await change(agents, ref.agentId, { op: 'set', config: { id, inputSeq: ref.inputSeq, url: url.toString(), ...sealed }, by });
    return { ...params, id, taskId: taskIdOf(ref), tenant: params.tenant ?? '' };
  };
}

export async function deletePushConfig(agents: AgentClient, ref: TurnRef, id: string, by: string): Promise<void> {
  secretOrRefuse();
  await change(agents, ref.agentId, { op: 'delete', inputSeq: ref.inputSeq, id: id || DEFAULT_ID, by });
}

/** The task's configs (the caller's credentials unsealed: they are the caller's own). A task that is over has none. */
export async function listPushConfigs(agents: AgentClient, ref: TurnRef): Promise<TaskPushNotificationConfig[]> {
  const secret = secretOrRefuse();
  const configs = (await agents.state(ref.agentId)).config.a2aPush ?? [];
  return configs.filter((c) => c.inputSeq === ref.inputSeq).map((c) => shown(secret, ref, c));
}

function shown(secret: string, ref: TurnRef, c: A2aPushConfig): TaskPushNotificationConfig {
  let creds: PushCredentials = {};
  try {
    creds = c.sealed ? unsealCredentials(secret, c.sealed) : {};
  } catch {
    // sealed with another secret: shown without its credentials
  }
  return { tenant: '', id: c.id, taskId: taskIdOf(ref), url: c.url, token: creds.token ?? '', authentication: creds.authentication };
}
