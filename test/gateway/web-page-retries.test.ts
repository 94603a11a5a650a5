/**
 * The web page shows a tool call that took more than one attempt: "3 attempts" in its card, opening to
 * why each earlier attempt failed (the result's `attempt_errors`), in a real headless Chromium against
 * a real gateway, an in-process worker and the dev server. Skipped (saying why) only when no Chromium is found.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ScriptedModelProvider, ToolRetryableError, defineTool } from '../../activities/index';
import { batchScript } from '../fixtures/scripts';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';
import { describeInBrowserFor, useBrowserAndGateway } from './browser-support';

const describeInBrowser = describeInBrowserFor('web-page-retries.test');
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/web-page-retries');
const { t, taskQueue } = useTestConnection('web-retries');

const runs = new Map<string, number>();
const flaky = defineTool({
  name: 'flaky',
  description: 'Fails twice with a passing fault, then answers.',
  parameters: z.object({}),
  retry: { initialIntervalMs: 50 },
  execute: (_args, ctx) => {
    const n = (runs.get(ctx.idempotencyKey) ?? 0) + 1;
    runs.set(ctx.idempotencyKey, n);
    if (n <= 2) throw new ToolRetryableError(`service unavailable on run ${n}`);
    return 'fine now';
  },
});

describeInBrowser('web page: retried tool calls (headless Chromium)', () => {
  const chrome = useBrowserAndGateway(() => t.agents, { token: 'page-retries-token', artifacts: ARTIFACTS });

  test('the tool card says how many attempts the call took, and why the earlier ones failed', async () => {
    const models = [new ScriptedModelProvider({ batch: batchScript([{ name: 'flaky', args: {} }]) })];
    await withWorker({ taskQueue, workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-web-retries-')), tools: [flaky], models }, async () => {
      const agentId = uniqueId('retries');
      await t.agents.start(agentId, { model: 'scripted:batch' });
      await expect(t.agents.ask(agentId, 'go')).resolves.toMatchObject({ status: 'answered' });
      const { page, errors, close } = await chrome.openPage(`${chrome.gateway.url}/#agent=${encodeURIComponent(agentId)}`);
      try {
        const card = page.locator('.tool', { has: page.locator('.tool-name', { hasText: 'flaky' }) });
        await card.locator('.attempts summary', { hasText: '3 attempts' }).waitFor();
        await card.locator('.attempts summary').click();
        const lines = await card.locator('.attempts li').allTextContents();
        expect(lines).toEqual([
          expect.stringMatching(/^attempt 1, retryable, \d{4}-.*Z: service unavailable on run 1$/),
          expect.stringMatching(/^attempt 2, retryable, \d{4}-.*Z: service unavailable on run 2$/),
        ]);
        expect(await card.locator('.result').textContent()).toBe('fine now');
        await page.screenshot({ path: path.join(ARTIFACTS, 'attempts.png') });
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    });
  });
});
