/**
 * Temporal Worker Deployment versioning for `livecontext worker` and createLivecontextWorker, from the
 * environment: LIVECONTEXT_DEPLOYMENT_NAME and LIVECONTEXT_BUILD_ID (both, or neither) make the worker poll
 * as that deployment's version; LIVECONTEXT_VERSIONING_BEHAVIOR is the agents' default behaviour,
 * AUTO_UPGRADE unless set (an agent lives for months, so it moves to each new current version and a
 * `patched()` guard keeps its path), or PINNED (each agent stays on the version it started on).
 */
import type { WorkerDeploymentOptions } from '@temporalio/worker';

export function deploymentFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerDeploymentOptions | undefined {
  const deploymentName = env.LIVECONTEXT_DEPLOYMENT_NAME?.trim();
  const buildId = env.LIVECONTEXT_BUILD_ID?.trim();
  if (!deploymentName && !buildId) return undefined;
  if (!deploymentName || !buildId) {
    throw new Error('Set both LIVECONTEXT_DEPLOYMENT_NAME and LIVECONTEXT_BUILD_ID for Worker Deployment versioning, or neither.');
  }
  const behavior = (env.LIVECONTEXT_VERSIONING_BEHAVIOR?.trim() || 'AUTO_UPGRADE').toUpperCase();
  if (behavior !== 'AUTO_UPGRADE' && behavior !== 'PINNED') {
    throw new Error(`LIVECONTEXT_VERSIONING_BEHAVIOR=${env.LIVECONTEXT_VERSIONING_BEHAVIOR} is not AUTO_UPGRADE or PINNED.`);
  }
  return { useWorkerVersioning: true, version: { deploymentName, buildId }, defaultVersioningBehavior: behavior };
}
