/** The pure parts of A2A push notifications: config changes, the task state of a turn, what is due, and the credential seal. */
import { type A2aPushConfig, type PushHost, applyA2aPushChange, checkA2aPushChange, duePushes } from '../../agent/a2a-push';
import { sealCredentials, signBody, unsealCredentials } from '../../common/push-seal';

const host = (over: Partial<PushHost> = {}): PushHost => ({
  consumedInputSeq: 1,
  turnOutcome: () => undefined,
  awaitsApproval: false,
  approvalText: () => 'Waiting for approval of deploy.',
  ...over,
});
const config: A2aPushConfig = { id: 'ci', inputSeq: 1, url: 'https://example.com/hook' };

test('a change is checked: http(s) only, an existing turn, a config to delete', () => {
  expect(() => checkA2aPushChange({ op: 'set', config: { ...config, url: 'ftp://x/y' } }, [], 2)).toThrow(/http\(s\) URL/);
  expect(() => checkA2aPushChange({ op: 'set', config: { ...config, inputSeq: 2 } }, [], 2)).toThrow(/no turn 2/);
  expect(() => checkA2aPushChange({ op: 'delete', inputSeq: 1, id: 'other' }, [config], 2)).toThrow(/No push notification config other/);
  const { configs, entry } = applyA2aPushChange([config], { op: 'set', config: { ...config, url: 'https://example.com/2', sealed: 'v1.x' }, by: 'a2a' });
  expect(configs).toEqual([{ ...config, url: 'https://example.com/2', sealed: 'v1.x' }]);
  expect(entry).toEqual({ change: 'set', configId: 'ci', inputSeq: 1, url: 'https://example.com/2', by: 'a2a' }); // never the sealed credentials
});

test('due notifications: each state change once, working first, numbered delivery ids; a finished task drops its config', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const queued = duePushes([config], 'a', host({ consumedInputSeq: 0 }), at);
  expect(queued.due).toEqual([]);
  const asked = duePushes([config], 'a', host({ awaitsApproval: true }), at);
  expect(asked.due.map((d) => [d.state, d.deliveryId, d.message])).toEqual([
    ['TASK_STATE_WORKING', 'turn-1@a/ci/1', undefined],
    ['TASK_STATE_INPUT_REQUIRED', 'turn-1@a/ci/2', 'Waiting for approval of deploy.'],
  ]);
  expect(duePushes(asked.configs, 'a', host({ awaitsApproval: true }), at).due).toEqual([]); // nothing changed
  const answered = host({ turnOutcome: () => ({ inputSeq: 1, status: 'interrupted' }) });
  const done = duePushes(asked.configs, 'a', answered, at);
  expect(done.due.map((d) => [d.state, d.deliveryId])).toEqual([['TASK_STATE_CANCELED', 'turn-1@a/ci/3']]);
  expect(done.configs).toEqual([]);
});

test('credentials are sealed for one secret; a body is signed with HMAC-SHA256', () => {
  const sealed = sealCredentials('s1', { token: 'tok', authentication: { scheme: 'Bearer', credentials: 'c' } });
  expect(sealed).not.toContain('tok');
  expect(unsealCredentials('s1', sealed)).toEqual({ token: 'tok', authentication: { scheme: 'Bearer', credentials: 'c' } });
  expect(() => unsealCredentials('s2', sealed)).toThrow();
  expect(signBody('key', 'The quick brown fox jumps over the lazy dog')).toBe('sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8');
});
