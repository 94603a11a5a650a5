/**
 * Time travel from the web page (issue 30, item 5), in a real headless Chromium against a real gateway, an
 * in-process worker whose OpenAI provider is the wire fake (so a call's request is fingerprinted and can be
 * reproduced) and the dev server:
 * - "fork from here" on an answer of the timeline asks the new agent's id and a model, forks, and opens the
 *   fork; the client then sees the fork with the source's history up to that entry and its lineage, the
 *   page shows "forked from <source> at #N" with a link, and the source's page lists the fork;
 * - "rewind to here" (confirmed): the rewound turns stay on the timeline, dimmed, without fork and rewind
 *   (a rewound call can still be inspected, and is reproduced); while a turn runs it is refused, and the
 *   panel says why;
 * - "inspect request" on a model call shows the request as sent, reproduced;
 * - "compare" on a turn's input runs it again on a fork per model and shows the answers, with links to the forks.
 * Screenshots go to test-artifacts/web-page-time-travel/. Skipped (saying why) only when no Chromium is found.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { useProviderServers } from '../support/provider-servers';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { describeInBrowserFor, useBrowserAndGateway } from './browser-support';

const describeInBrowser = describeInBrowserFor('web-page-time-travel.test');

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/web-page-time-travel');
const TOKEN = 'page-travel-token';
const { t, p, taskQueue } = useProviderServers('web-travel');

describeInBrowser('web page: time travel (headless Chromium)', () => {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-web-travel-'));
  const chrome = useBrowserAndGateway(() => t.agents, { token: TOKEN, artifacts: ARTIFACTS });
  const agentUrl = (agentId: string) => `${chrome.gateway.url}/#agent=${encodeURIComponent(agentId)}`;

  test('fork from here opens the fork, with the history up to that entry and its lineage; inspect, compare and rewind from the timeline', async () => {
    p.openai.respond = () => ({ kind: 'stream', text: 'Noted.' });
    await withWorker({ taskQueue, workspaceRoot, models: p.models() }, async () => {
      const source = uniqueId('src');
      const forkId = `${source}.fork`;
      await t.agents.start(source, { model: 'openai:gpt-4.1-mini' });
      for (const text of ['alpha', 'bravo', 'charlie']) expect((await t.agents.ask(source, text)).status).toBe('answered');
      const history = await t.agents.history(source);
      const answers = history.filter((e) => e.kind === 'model_output');
      expect(answers).toHaveLength(3);
      const at = answers[0].seq; // the first turn's answer: a turn boundary

      const { page, errors, close } = await chrome.openPage(agentUrl(source));
      try {
        await page.locator('#connection[data-status=live]').waitFor();
        // Fork and rewind on valid points only: the answers and the inputs; inspect on every model call.
        const forkButton = page.locator(`#timeline .step.model button.fork-here[data-seq="${at}"]`);
        await forkButton.waitFor();
        expect(await page.locator('#timeline .step.model button.fork-here').count()).toBe(3);
        expect(await page.locator('#timeline .turn-title button.fork-here').count()).toBe(3);
        expect(await page.locator('#timeline button.inspect-request').count()).toBe(3);

        await forkButton.click();
        await page.locator('#travel .fork-form').waitFor();
        await page.locator('#travel input.fork-as').fill(forkId);
        await page.locator('#travel input.fork-model').fill('demo:offline');
        await page.screenshot({ path: path.join(ARTIFACTS, '1-fork-form.png') });
        await page.locator('#travel button.fork-submit').click();

        // The page opens the fork, and says where it came from, with a link to the source.
        await page.waitForURL((url) => url.hash === `#agent=${encodeURIComponent(forkId)}`);
        await page.locator('#agent-title', { hasText: forkId }).waitFor();
        const forkedFrom = page.locator('#lineage .forked-from');
        await forkedFrom.waitFor();
        expect(await forkedFrom.textContent()).toBe(`forked from ${source} at #${at}`);
        expect(await forkedFrom.locator('a').getAttribute('href')).toBe(`#agent=${encodeURIComponent(source)}`);
        // Its timeline: the source's first turn only.
        await page.locator('#timeline .turn').first().waitFor();
        expect(await page.locator('#timeline .turn').count()).toBe(1);
        await page.screenshot({ path: path.join(ARTIFACTS, '2-fork-opened.png') });

        // From the client: the fork exists, with the source's history up to `at`, its lineage and the model asked for.
        const forkState = await t.agents.state(forkId);
        expect(forkState.config.forkedFrom).toMatchObject({ agentId: source, seq: at });
        expect(forkState.config.model).toBe('demo:offline');
        const forkHistory = await t.agents.history(forkId);
        const strip = (entries: typeof history) =>
          entries.filter((e) => e.kind === 'model_input' || e.kind === 'model_output').map((e) => ({ seq: e.seq, kind: e.kind }));
        expect(strip(forkHistory)).toEqual(strip(history.filter((e) => e.seq <= at)));
        expect(forkHistory.every((e) => e.seq <= at || !['model_input', 'model_output'].includes(e.kind))).toBe(true);
        // The source is untouched.
        expect((await t.agents.history(source)).length).toBe(history.length);

        // Back to the source by the lineage's link: it lists its fork (the listing follows Temporal's visibility).
        await forkedFrom.locator('a').click();
        await page.locator('#agent-title', { hasText: source }).waitFor();
        await eventually(
          async () => {
            await page.reload();
            await page.locator('#connection[data-status=live]').waitFor();
            await page
              .locator('#lineage:not([hidden])')
              .waitFor({ timeout: 5000 })
              .catch(() => {});
            return (await page.locator('#lineage .forks a').allTextContents()).includes(forkId);
          },
          30_000,
          'the source to list its fork',
        );
        expect(await page.locator('#lineage .forks').textContent()).toContain(`${forkId} at #${at}`);

        // Inspect the first call: the request as sent, reproduced.
        await page.locator(`#timeline button.inspect-request[data-seq="${at}"]`).click();
        await page.locator('#travel .reproduced').waitFor();
        expect(await page.locator('#travel .reproduced').getAttribute('class')).toContain('yes');
        expect(await page.locator('#travel pre.request').textContent()).toContain('alpha');
        await page.screenshot({ path: path.join(ARTIFACTS, '3-inspect.png') });

        // Compare from the first turn's menu: its input run again on a fork per model, the answers side by side.
        const input = history.find((e) => e.kind === 'model_input')!.seq;
        await page.locator(`#timeline .turn-title button.compare-models[data-seq="${input}"]`).click();
        await page.locator('#travel input.compare-models-input').fill('openai:gpt-4.1-mini, demo:offline');
        await page.locator('#travel button.compare-submit').click();
        await page.locator('#travel .compared-model').nth(1).waitFor({ timeout: 60_000 });
        const compared = page.locator('#travel .compared-model');
        expect([await compared.nth(0).getAttribute('data-model'), await compared.nth(1).getAttribute('data-model')]).toEqual([
          'openai:gpt-4.1-mini',
          'demo:offline',
        ]);
        expect(await compared.first().locator('pre.answer').textContent()).toBe('Noted.');
        const compareForks = await compared.locator('a.agent-link').allTextContents();
        for (const id of compareForks) expect((await t.agents.state(id)).config.forkedFrom).toMatchObject({ agentId: source, seq: input });
        await page.screenshot({ path: path.join(ARTIFACTS, '4-compare.png') });

        // Rewind to the first answer (confirmed): the later turns stay on the timeline, dimmed, and lose their actions.
        page.once('dialog', (dialog) => void dialog.accept());
        await page.locator(`#timeline .step.model button.rewind-here[data-seq="${at}"]`).click();
        await page.locator('#travel .rewind-result').waitFor();
        await eventually(async () => (await page.locator('#timeline .turn.rewound').count()) === 2, 30_000, 'the rewound turns dimmed');
        expect(await page.locator('#timeline .step.model button.fork-here').count()).toBe(1);
        // A rewound call was still sent: inspecting it reproduces what it was sent then.
        const last = answers[2].seq;
        await page.locator(`#timeline .step.model.rewound button.inspect-request[data-seq="${last}"]`).click();
        await page.locator('#travel h3', { hasText: `call #${last}` }).waitFor();
        await page.locator('#travel .reproduced').waitFor();
        expect(await page.locator('#travel .reproduced').getAttribute('class')).toContain('yes');
        expect(await page.locator('#travel pre.request').textContent()).toContain('charlie');
        const visible = (await t.agents.entries(source)).entries.filter((e) => e.kind === 'rewind');
        expect(visible).toHaveLength(1);
        await page.screenshot({ path: path.join(ARTIFACTS, '5-rewound.png') });

        expect(errors).toEqual([]);

        // A rewind while a turn runs is refused, and the panel says why in the gateway's words.
        p.openai.respond = () => ({ kind: 'stream', text: 'one two three four five six seven eight nine ten', chunkDelayMs: 1500 });
        await t.agents.send(source, 'delta');
        await eventually(async () => (await t.agents.state(source)).runState !== 'WaitingInput', 30_000, 'the slow turn to start');
        page.once('dialog', (dialog) => void dialog.accept());
        await page.locator(`#timeline .step.model button.rewind-here[data-seq="${at}"]`).click();
        const refused = page.locator('#travel .rewind-refused');
        await refused.waitFor();
        expect(await refused.textContent()).toMatch(/interrupt/i);
        expect(await page.locator('#travel h3').textContent()).toContain(`Rewind to #${at} refused`);
        await page.screenshot({ path: path.join(ARTIFACTS, '6-rewind-refused.png') });
        expect((await t.agents.interrupt(source, 'test')).interrupted).toBe(true);
        expect(errors.filter((e) => !/status of 409/.test(e))).toEqual([]);
      } finally {
        await close();
      }
    });
  });
});
