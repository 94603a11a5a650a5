import { deploymentFromEnv } from '../../worker/deployment-from-env';

test('no versioning unless a deployment is named', () => {
  expect(deploymentFromEnv({})).toBeUndefined();
});

test('a deployment name and build id make the worker a version of that deployment, AUTO_UPGRADE by default', () => {
  expect(deploymentFromEnv({ LIVECONTEXT_DEPLOYMENT_NAME: 'agents', LIVECONTEXT_BUILD_ID: '2026-11-26.1' })).toEqual({
    useWorkerVersioning: true,
    version: { deploymentName: 'agents', buildId: '2026-11-26.1' },
    defaultVersioningBehavior: 'AUTO_UPGRADE',
  });
  expect(
    deploymentFromEnv({ LIVECONTEXT_DEPLOYMENT_NAME: 'agents', LIVECONTEXT_BUILD_ID: 'b', LIVECONTEXT_VERSIONING_BEHAVIOR: 'pinned' })
      ?.defaultVersioningBehavior,
  ).toBe('PINNED');
});

test('half a setting or an unknown behaviour is a clear error', () => {
  expect(() => deploymentFromEnv({ LIVECONTEXT_DEPLOYMENT_NAME: 'agents' })).toThrow('Set both LIVECONTEXT_DEPLOYMENT_NAME and LIVECONTEXT_BUILD_ID');
  expect(() => deploymentFromEnv({ LIVECONTEXT_BUILD_ID: 'b' })).toThrow('Set both');
  expect(() => deploymentFromEnv({ LIVECONTEXT_DEPLOYMENT_NAME: 'a', LIVECONTEXT_BUILD_ID: 'b', LIVECONTEXT_VERSIONING_BEHAVIOR: 'sometimes' })).toThrow(
    'is not AUTO_UPGRADE or PINNED',
  );
});
