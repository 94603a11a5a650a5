import type { TestWorkflowEnvironment } from '@temporalio/testing';

export default async function globalTeardown(): Promise<void> {
  const env = (globalThis as Record<string, unknown>).__LIVECONTEXT_ENV__ as TestWorkflowEnvironment | undefined;
  await env?.teardown();
}
