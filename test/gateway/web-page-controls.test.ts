/**
 * The web page as a place to run agents (issue 26, items 5 and 8), in a real headless Chromium against a
 * real gateway, an in-process worker (the offline demo model, and a scripted one for markdown) and the
 * dev server:
 * - the first screen says what to try (the demo's words), and a word becomes the message;
 * - your message shows at once (pending while its turn waits behind a sleeping one), then is the
 *   stream's own, once; the line under the conversation says when the agent waits for you;
 * - an interrupted sleep reads "interrupted" on the timeline; tool names with underscores are whole;
 * - the agents list says what the header says (the gateway's words), and follows the agent live;
 * - answers are markdown, safely (no markup of the model's runs or loads);
 * - model, notebook edit, export, reset and stop from the page;
 * - on a phone the details are a drawer, out of the conversation's way;
 * - a gateway restart mid-conversation does not show a turn twice on the timeline.
 * Screenshots go to test-artifacts/web-page-controls/. Skipped (saying why) only when no Chromium is found.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type Script, ScriptedModelProvider } from '../../activities/index';
import { unwrap } from '../../agent/index';
import { serveGateway } from '../../gateway/serve-gateway';
import { tokensFromEnv } from '../../gateway/tokens';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';
import { describeInBrowserFor, useBrowserAndGateway } from './browser-support';

const describeInBrowser = describeInBrowserFor('web-page-controls.test');

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/web-page-controls');
const TOKEN = 'page-controls-token';
const { t, taskQueue } = useTestConnection('web-controls');

const MARKDOWN = [
  '## Plan',
  '',
  'Deploy **api** with `make deploy_all` <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script> then:',
  '',
  '1. check the [dashboard](https://example.com/dash)',
  '2. tell [ops](javascript:window.__pwned=3)',
  '',
  '```',
  'if (a < b) { go(); }',
  '```',
].join('\n');
/** A tool name as long as MCP's `server__tool` names get: shown whole, nowhere clipped. */
const LONG_TOOL = 'summarize_customer_billing_history_for_the_quarter';
const longTool = defineTool({ name: LONG_TOOL, description: 'Summarizes billing.', parameters: z.object({}), execute: async () => 'billing is fine' });
/** Calls the long-named tool, then answers in markdown. */
const markdownScript: Script = (req) =>
  unwrap(req.messages[req.messages.length - 1]).kind === 'tool_results' ? { text: MARKDOWN } : { toolCalls: [{ name: LONG_TOOL, args: {} }] };

describeInBrowser('web page: a place to run agents (headless Chromium)', () => {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-web-controls-'));
  const models = () => [new ScriptedModelProvider({ md: markdownScript })];
  const chrome = useBrowserAndGateway(() => t.agents, { token: TOKEN, artifacts: ARTIFACTS });

  /** A page with the token, on `url` (the gateway's page, or an agent's); page errors collected. */
  const openPage = (url: string, viewport = { width: 1280, height: 900 }) => chrome.openPage(url, { viewport, acceptDownloads: true });
  const agentUrl = (agentId: string, base = chrome.gateway.url) => `${base}/#agent=${encodeURIComponent(agentId)}`;

  test('first screen, your message at once, waiting for you, an interrupted sleep, whole tool names, one vocabulary live', async () => {
    await withWorker({ taskQueue, workspaceRoot, models: models() }, async () => {
      const agentId = uniqueId('demo');
      await t.agents.start(agentId, { model: 'demo:offline', parallelTools: true });
      const { page, errors, close } = await openPage(chrome.gateway.url);
      try {
        // No agent open: the first screen says what to do.
        await page.locator('#welcome').waitFor();
        expect(await page.locator('#welcome').textContent()).toContain('offline demo model');
        await page.screenshot({ path: path.join(ARTIFACTS, '1-welcome.png') });

        // The demo agent: its empty conversation offers the demo's words; one becomes the message.
        await page.goto(agentUrl(agentId));
        await page.locator('#connection[data-status=live]').waitFor();
        const tries = page.locator('.hint button.try');
        await tries.first().waitFor();
        expect(await tries.allTextContents()).toEqual(['remember I like tea', 'plan buy milk, call mum', 'delete note 2', 'sleep 20', 'both']);
        expect(await page.locator('#welcome').isVisible()).toBe(false);
        await page.screenshot({ path: path.join(ARTIFACTS, '2-empty-agent.png') });
        await tries.filter({ hasText: 'remember I like tea' }).click();
        expect(await page.inputValue('#message')).toBe('remember I like tea');
        await page.press('#message', 'Enter');
        await page.locator('.msg.assistant', { hasText: 'Noted in my memory notebook' }).waitFor();
        expect(await page.locator('.hint').isVisible()).toBe(false);

        // A sleep holds the turn; a message sent meanwhile shows at once, pending, while the stream has not brought it.
        await page.fill('#message', 'sleep 600');
        await page.press('#message', 'Enter');
        await page.locator('.tool .tool-name', { hasText: 'sleep' }).waitFor();
        await eventually(async () => (await t.agents.state(agentId)).runState === 'WaitingToolResults', 30_000, 'the sleep');
        await page.fill('#message', 'plan buy milk, call mum');
        await page.press('#message', 'Enter');
        const queued = page.locator('.msg.user', { hasText: 'plan buy milk, call mum' });
        await queued.waitFor();
        expect(await queued.getAttribute('class')).toContain('pending');
        await page.locator('.msg.user.pending .note', { hasText: 'sent' }).waitFor();
        expect((await t.agents.state(agentId)).inboxLength).toBe(1); // queued: no turn has taken it yet
        expect(await page.locator('.working').textContent()).toMatch(/^working…/);
        await page.screenshot({ path: path.join(ARTIFACTS, '3-pending.png') });

        // Interrupt: the sleep's turn ends, the queued message's turn starts; the message is the stream's now, shown once.
        await page.click('#interrupt');
        await page.locator('.note.turn-end', { hasText: 'interrupted by web' }).waitFor();
        await page.locator('#tasks .task', { hasText: 'call mum' }).waitFor();
        expect(await queued.count()).toBe(1);
        expect(await queued.getAttribute('class')).not.toContain('pending');
        expect(await queued.getAttribute('data-message-id')).toMatch(/^in-\d+$/);

        // The interrupted sleep on the timeline: interrupted, not waiting for approvals; tool names whole.
        const sleepStep = page.locator('#timeline .step.tool', { hasText: 'sleep' });
        await sleepStep.locator('.step-note', { hasText: 'interrupted' }).waitFor();
        expect(await page.locator('#timeline').textContent()).toContain('interrupted after');
        expect(await page.locator('#timeline').textContent()).not.toContain('approvals, queue');
        const label = page.locator('#timeline .step.tool .step-label', { hasText: 'memory_notebook_replace' });
        expect(await label.textContent()).toBe('memory_notebook_replace');
        const clipped = await label.evaluate((node) => node.scrollWidth > node.clientWidth || node.scrollHeight > node.clientHeight);
        expect(clipped).toBe(false);

        // A call that waits for approval: the line says the agent waits for you; list and header say the same words.
        await page.fill('#message', 'delete note 2');
        await page.press('#message', 'Enter');
        await page.locator('.tool button.approve').waitFor();
        await page.locator('.working', { hasText: 'waiting for your approval' }).waitFor();
        await page.locator('#run-state', { hasText: 'waiting for approval · delete_file' }).waitFor();
        const row = page.locator(`#agent-list [data-agent-id="${agentId}"] .agent-state`);
        await row.filter({ hasText: 'waiting for approval' }).waitFor();
        const listed = await chrome.gateway.request('GET', '/agents', undefined, { token: TOKEN });
        expect(listed.body.agents.find((a: { agentId: string }) => a.agentId === agentId).stateWord).toBe('waiting for approval');
        expect(await page.locator('#run-state').textContent()).not.toMatch(/WaitingToolResults|[A-Z][a-z]+[A-Z]/);
        await page.screenshot({ path: path.join(ARTIFACTS, '4-waiting-for-you.png') });
        await page.locator('.tool button.deny').click();
        await page.locator('#run-state', { hasText: 'waiting for input' }).waitFor();
        await row.filter({ hasText: 'waiting for input' }).waitFor(); // the list follows the agent live
        await page.screenshot({ path: path.join(ARTIFACTS, '5-timeline.png') });
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    });
  });

  test('an answer in markdown is shown as markdown, and markup in it stays text; a long tool name is whole', async () => {
    await withWorker({ taskQueue, workspaceRoot, models: models(), tools: [longTool] }, async () => {
      const agentId = uniqueId('md');
      await t.agents.start(agentId, { model: 'scripted:md' });
      const { page, errors, close } = await openPage(agentUrl(agentId));
      try {
        await page.locator('#connection[data-status=live]').waitFor();
        await page.fill('#message', 'plan?');
        await page.press('#message', 'Enter');
        const answer = page.locator('.msg.assistant.markdown .text');
        await answer.waitFor();
        expect(await answer.locator('h5').textContent()).toBe('Plan');
        expect(await answer.locator('strong').textContent()).toBe('api');
        expect(await answer.locator('p code').textContent()).toBe('make deploy_all');
        expect(await answer.locator('ol > li').count()).toBe(2);
        expect(await answer.locator('pre code').textContent()).toBe('if (a < b) { go(); }');
        // The model's markup is text: shown, never run or loaded.
        expect(await answer.textContent()).toContain('<img src=x onerror="window.__pwned=1">');
        expect(await answer.textContent()).toContain('<script>window.__pwned=2</script>');
        expect(await page.locator('#conversation img, #conversation script').count()).toBe(0);
        // Links: http(s) only; a javascript: link is its text alone.
        expect(await answer.locator('a').count()).toBe(1);
        expect(await answer.locator('a').getAttribute('href')).toBe('https://example.com/dash');
        expect(await answer.locator('a').getAttribute('rel')).toContain('noopener');
        await answer
          .locator('a')
          .click({ modifiers: ['Control'] })
          .catch(() => undefined);
        expect(await page.evaluate('window.__pwned')).toBeUndefined();
        // The tool's long name, underscores and all, is whole in the conversation and on the timeline.
        const label = page.locator('#timeline .step.tool .step-label');
        await label.waitFor();
        expect(await label.textContent()).toBe(LONG_TOOL);
        expect(await page.locator('.tool .tool-name').textContent()).toBe(LONG_TOOL);
        for (const name of [label, page.locator('.tool .tool-name')]) {
          expect(
            await name.evaluate(
              (node) =>
                node.scrollWidth <= node.clientWidth + 1 &&
                node.getBoundingClientRect().right <= (node.closest('aside, li') ?? node).getBoundingClientRect().right + 1,
            ),
          ).toBe(true);
        }
        await page.screenshot({ path: path.join(ARTIFACTS, '6-markdown.png') });
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    });
  });

  test('the controls: model, notebook edit, export, reset and stop', async () => {
    await withWorker({ taskQueue, workspaceRoot, models: models() }, async () => {
      const agentId = uniqueId('ctl');
      await t.agents.start(agentId, { model: 'demo:offline' });
      const { page, errors, close } = await openPage(agentUrl(agentId));
      // Every POST the page makes is JSON, with a JSON body.
      const posts: Array<{ url: string; type: string | undefined; body: string | null }> = [];
      page.on('request', (r) => r.method() === 'POST' && posts.push({ url: r.url(), type: r.headers()['content-type'], body: r.postData() }));
      page.on('dialog', (d) => void d.accept());
      try {
        await page.locator('#connection[data-status=live]').waitFor();
        await page.fill('#message', 'remember I like tea');
        await page.press('#message', 'Enter');
        await page.locator('#notebook', { hasText: 'I like tea' }).waitFor();

        // Model: the field shows the agent's; another is set through configure.
        expect(await page.inputValue('#agent-model')).toBe('demo:offline');
        await page.fill('#agent-model', 'scripted:md');
        await page.click('#set-model');
        await page.locator('#control-status', { hasText: 'Model set to scripted:md.' }).waitFor();
        await eventually(async () => (await t.agents.state(agentId)).config.model === 'scripted:md', 30_000, 'the new model');
        await page.locator(`#agent-list [data-agent-id="${agentId}"] .agent-meta`, { hasText: 'scripted:md' }).waitFor();

        // The notebook, edited from the page (as the host).
        await page.click('#edit-notebook');
        expect(await page.inputValue('#notebook-text')).toContain('I like tea');
        await page.fill('#notebook-text', 'likes green tea\nlives in Lyon');
        await page.click('#notebook-form button[type=submit]');
        await page.locator('#notebook', { hasText: 'lives in Lyon' }).waitFor();
        expect((await t.agents.state(agentId)).notebook).toBe('likes green tea\nlives in Lyon');
        await page.screenshot({ path: path.join(ARTIFACTS, '7-controls.png') });

        // Export: a download of the agent's snapshot.
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-agent')]);
        expect(download.suggestedFilename()).toBe(`${agentId}.json`);
        const snapshot = JSON.parse(readFileSync((await download.path())!, 'utf8'));
        expect(snapshot.config.model).toBe('scripted:md');
        expect(snapshot.sourceAgentId).toBe(agentId);

        // Reset: the history starts over; then stop: the agent ends, and the list says so.
        await page.click('#reset-agent');
        await page.locator('.note', { hasText: 'The agent was reset' }).waitFor();
        await eventually(async () => (await t.agents.state(agentId)).entryCount === 0, 30_000, 'the reset');
        await page.click('#stop-agent');
        await page.locator(`#agent-list [data-agent-id="${agentId}"] .agent-state`, { hasText: 'stopped' }).waitFor();

        const controlPosts = posts.filter((p) => /\/(configure|notebook|reset|stop|input)$/.test(new URL(p.url).pathname));
        expect(controlPosts.length).toBeGreaterThanOrEqual(5);
        for (const p of controlPosts) {
          expect(p.type).toBe('application/json');
          expect(() => JSON.parse(p.body ?? '')).not.toThrow();
        }
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    });
  });

  test('on a phone the details are a drawer: the conversation keeps the screen', async () => {
    await withWorker({ taskQueue, workspaceRoot, models: models() }, async () => {
      const agentId = uniqueId('phone');
      await t.agents.start(agentId, { model: 'demo:offline' });
      const { page, errors, close } = await openPage(agentUrl(agentId), { width: 390, height: 844 });
      try {
        await page.locator('#connection[data-status=live]').waitFor();
        await page.fill('#message', 'plan buy milk, call mum');
        await page.press('#message', 'Enter');
        await page.locator('.msg.assistant', { hasText: 'Added #1, #2' }).waitFor();
        expect(await page.locator('#details').isVisible()).toBe(false);
        const chat = (await page.locator('.chat').boundingBox())!;
        expect(chat.height).toBeGreaterThan(844 * 0.8); // not a third of it for the details
        await page.screenshot({ path: path.join(ARTIFACTS, '8-phone.png') });
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);

        await page.click('#toggle-details');
        await page.locator('#details.open').waitFor();
        await page.locator('#tasks .task', { hasText: 'call mum' }).waitFor({ state: 'visible' });
        await page
          .locator('#details')
          .evaluate((node) =>
            Promise.all((node as unknown as { getAnimations(): Array<{ finished: Promise<unknown> }> }).getAnimations().map((a) => a.finished)),
          ); // the slide has ended
        const drawer = (await page.locator('#details').boundingBox())!;
        expect(drawer.x + drawer.width).toBeLessThanOrEqual(391);
        expect(drawer.height).toBeGreaterThan(800);
        await page.screenshot({ path: path.join(ARTIFACTS, '9-phone-details.png') });
        await page.click('#close-details');
        await page.locator('#details').waitFor({ state: 'hidden' });
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    });
  });

  test('a gateway restart mid-conversation shows no turn twice on the timeline', async () => {
    const tokens = tokensFromEnv({ LIVECONTEXT_GATEWAY_TOKEN: TOKEN });
    let own = await serveGateway({ agents: t.agents, tokens, port: 0, host: '127.0.0.1', log: () => {} });
    const { port } = own;
    await withWorker({ taskQueue, workspaceRoot, models: models() }, async () => {
      const agentId = uniqueId('restart');
      await t.agents.start(agentId, { model: 'demo:offline' });
      const { page, errors, close } = await openPage(agentUrl(agentId, own.url));
      try {
        await page.locator('#connection[data-status=live]').waitFor();
        await page.fill('#message', 'remember I like tea');
        await page.press('#message', 'Enter');
        await page.locator('#timeline .turn').waitFor();

        // The next history read is answered by the gateway, but its answer is held back (as a read is slow while
        // a gateway goes down) until the gateway is back and the stream has resumed: the page then asks for
        // history again while the first read is still out. Before the fix both appended what they read.
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let holding = true;
        let asked = 0;
        let answered = 0;
        page.on('requestfinished', (r) => /\/history\?/.test(r.url()) && (answered += 1));
        page.on('requestfailed', (r) => /\/history\?/.test(r.url()) && (answered += 1));
        let fetched = false;
        await page.route('**/history?*', async (route) => {
          asked += 1;
          if (!holding) return route.continue();
          holding = false;
          const response = await route.fetch();
          fetched = true;
          await held;
          await route.fulfill({ response });
        });
        await page.fill('#message', 'plan buy milk, call mum');
        await page.press('#message', 'Enter');
        await eventually(() => fetched, 30_000, 'a history read answered');
        await own.close();
        await page.locator('#connection[data-status=reconnecting]').waitFor();
        own = await serveGateway({ agents: t.agents, tokens, port, host: '127.0.0.1', log: () => {} });
        await page.locator('#connection[data-status=live]').waitFor();
        await page.fill('#message', 'done 1');
        await page.press('#message', 'Enter');
        await page.locator('#tasks .task.done', { hasText: 'buy milk' }).waitFor();
        await page.locator('.msg.assistant', { hasText: 'My task list' }).nth(1).waitFor();
        // The page asks for the new entries a moment after the stream brings them: a page that reads
        // history twice at once has asked by now (one that reads one at a time waits for the held read).
        await eventually(() => asked >= 2, 3_000, 'a second history read').catch(() => undefined);
        release();

        const inputs = (await t.agents.history(agentId)).filter((e) => e.kind === 'model_input').length;
        expect(inputs).toBe(3);
        await eventually(async () => (await page.locator('#timeline .turn').count()) >= 3, 30_000, 'three turns on the timeline');
        // Every history read the page made has been answered (the held one too) and shown: still three turns.
        await eventually(() => answered === asked, 30_000, 'every history read answered');
        await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
        expect(await page.locator('#timeline .turn').count()).toBe(3);
        expect(await page.locator('.msg.user').count()).toBe(3);
        await page.screenshot({ path: path.join(ARTIFACTS, '10-restarted.png') });
        expect(errors.filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED|network/i.test(e))).toEqual([]);
      } finally {
        await close();
      }
    });
    await own.close();
  });
});
