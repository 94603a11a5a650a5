/**
 * The web page's doors for a tool call whose outcome is unknown (issue 29), in a real headless Chromium
 * against a real gateway and the dev server: a worker (a child process, test/fixtures/effects-worker.ts)
 * is SIGKILLed right after a local HTTP service has charged a card for a call, so the call's next attempt
 * cannot know whether the charge happened and the agent waits with the call marked unknown. The page
 * shows the call as unknown with its effect key and start time; a person clicks "It happened" with a text
 * (the result the model sees), or "Run it again" (the service answers the repeated key without a second
 * charge), and the agent moves on — its history holds the result that was clicked. While it waits,
 * `livecontext list` and the gateway's list say it waits for a resolution (not for an approval).
 * Skipped (saying why) only when no Chromium is found.
 */
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { cli } from '../support/cli';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, workflowBundle } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';
import { useUnknownOutcomes } from '../support/unknown-outcome';
import { describeInBrowserFor, useBrowserAndGateway } from './browser-support';

const describeInBrowser = describeInBrowserFor('web-page-unknown-outcome.test');
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/web-page-unknown-outcome');
const { t, taskQueue } = useTestConnection('web-unknown');
const { service, agentWaitingOnUnknown, chargeResult } = useUnknownOutcomes(t, taskQueue);
const TOKEN = 'page-unknown-token';

/** The word `livecontext list` prints for `agentId` (its table's STATE column). */
async function listedWord(agentId: string): Promise<string | undefined> {
  const list = await cli(['list'], { env: { LIVECONTEXT_TASK_QUEUE: taskQueue } });
  expect(list.code).toBe(0);
  const row = list.stdout.split('\n').find((line) => line.startsWith(`${agentId} `));
  return row
    ?.slice(agentId.length)
    .trim()
    .split(/\s{2,}/)[0];
}

describeInBrowser('web page: a tool call whose outcome is unknown (headless Chromium)', () => {
  const chrome = useBrowserAndGateway(() => t.agents, { token: TOKEN, artifacts: ARTIFACTS });

  test.each([
    ['It happened', 'done'],
    ['Run it again', 'retry'],
  ] as const)(
    'the call shows as unknown with its key and start time; "%s" moves the agent on with that result',
    async (button, how) => {
      const { agentId, inputSeq, key, unknown } = await agentWaitingOnUnknown();
      expect(key).toBe(`${agentId}/${unknown.toolCallId}`);
      if (how === 'done') {
        // Listed as waiting for a resolution (not for an approval): by `livecontext list` and by the gateway's list.
        await eventually(async () => (await listedWord(agentId)) === 'waiting for a resolution', 30_000, `${agentId} listed as waiting for a resolution`);
        const listed = (await chrome.gateway.request('GET', '/agents', undefined, { token: TOKEN })).body.agents as Array<{ agentId: string }>;
        expect(listed.find((a) => a.agentId === agentId)).toMatchObject({ runState: 'WaitingResolution', stateWord: 'waiting for a resolution' });
      }
      const { page, errors, close } = await chrome.openPage(`${chrome.gateway.url}/#agent=${encodeURIComponent(agentId)}`);
      try {
        const card = page.locator(`.tool[data-tool-call-id="${unknown.toolCallId}"]`);
        await card.locator('.decision .effect-key').waitFor();
        expect(await card.locator('.tool-name').textContent()).toBe('charge');
        expect(await card.locator('.status').textContent()).toBe('outcome unknown: did it happen?');
        expect(await card.locator('.decision .why').textContent()).toContain('never reported');
        expect(await card.locator('.decision .effect-key').textContent()).toBe(key);
        expect(await card.locator('.decision .effect-started').getAttribute('datetime')).toBe(unknown.startedAt);
        expect(JSON.parse((await card.locator('.args').textContent())!)).toEqual({ cents: 250 }); // once, not the state's copy and the stream's
        await page.locator('#run-state', { hasText: 'waiting for a resolution' }).waitFor();
        expect(await page.locator('#conversation .working').textContent()).toBe('waiting for your resolution (the outcome of charge is unknown)');
        if (how === 'done') {
          // The agents list offers the word as a filter, and lists the agent under it.
          const listed = page.locator(`#agent-list [data-agent-id="${agentId}"]`);
          await page.selectOption('#agent-state', 'waiting for a resolution');
          await listed.waitFor();
          await page.selectOption('#agent-state', 'waiting for approval');
          await listed.waitFor({ state: 'detached' });
          await page.selectOption('#agent-state', '');
        }
        await page.screenshot({ path: path.join(ARTIFACTS, `unknown-${how}.png`) });

        if (how === 'done') await card.locator('.decision input.reason').fill('the statement shows one charge of 2.50');
        await card.getByRole('button', { name: button }).click();
        await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
        await card.locator('.decision').waitFor({ state: 'hidden' });
        await card.locator('.result').waitFor();

        const result = await chargeResult(agentId);
        if (how === 'done') {
          expect(result).toMatchObject({
            status: 'Success',
            result: 'the statement shows one charge of 2.50',
            metadata: { resolved: 'done', resolved_by: 'web' },
          });
        } else {
          // Run again with the same key: the service answered it from its first charge, not charging twice.
          expect(result).toMatchObject({
            status: 'Success',
            result: `charged: ${service.answers.get(key)}`,
            metadata: { resolved: 'retry', resolved_by: 'web' },
          });
        }
        expect(await card.locator('.result').textContent()).toBe(result.result);
        expect(service.effects.get(key)).toBe(1);
        expect(errors).toEqual([]);
        // The history replays (the listing as WaitingResolution is a change of its own); recorded once.
        const history = await t.agents.handle(agentId).fetchHistory();
        await Worker.runReplayHistory({ workflowBundle: workflowBundle() }, history, agentId);
        if (how === 'done') await maybeRecordHistory(t.agents.handle(agentId), 'effect-unknown-listed-resolution_v1.json');
      } finally {
        await close();
      }
    },
    240_000,
  );
});
