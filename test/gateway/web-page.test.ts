/**
 * The web chat in a real headless Chromium (Debian's `chromium`, driven by playwright-core), against a
 * real gateway, worker and dev server, with a slowly streaming OpenAI wire fake as the model:
 * a token asked for on 401, an agent started from the form, a message sent, text seen while it streams,
 * a tool call approved and another denied with their buttons, the answer shown — as text, so its `<script>` does not run —
 * the timeline and usage panels filled from history and state, and the conversation on a phone-sized
 * window. Screenshots go to test-artifacts/web-page/.
 *
 * Skipped (saying why) only when no Chromium is found: LIVECONTEXT_CHROMIUM_PATH, /usr/bin/chromium,
 * /usr/bin/chromium-browser (`npm test` installs Debian's package when it can).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deployTool } from '../fixtures/test-tools';
import { buildGateway } from '../../gateway/gateway';
import { serveGateway } from '../../gateway/serve-gateway';
import { tokensFromEnv } from '../../gateway/tokens';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';
import { describeInBrowserFor, useBrowserAndGateway } from './browser-support';

const describeInBrowser = describeInBrowserFor('web-page.test');

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/web-page');
const TOKEN = 'page-test-token';
const FIRST_WORDS = Array.from({ length: 30 }, (_, i) => `step${i}`).join(' ');
const FIRST_TEXT = `I will deploy the api to prod. ${FIRST_WORDS}`;
const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
const ANSWER = `Deployed the api to prod. ${HOSTILE} All done.`;

const { t, p, taskQueue } = useProviderServers('web-page');

test('the page and its assets are served to anyone, with a policy that refuses inline scripts', async () => {
  const app = buildGateway({ agents: t.agents, tokens: tokensFromEnv({ LIVECONTEXT_GATEWAY_TOKEN: TOKEN }), log: () => {} });
  const res = await app.request('/');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(await res.text()).toContain('/assets/app.js');
  const asset = await app.request('/assets/app.js');
  expect(asset.status).toBe(200);
  expect(asset.headers.get('content-type')).toMatch(/javascript/);
  expect((await app.request('/assets/..%2Fpackage.json')).status).toBe(404);
  expect((await app.request('/assets/nope.js')).status).toBe(404);
  // The page is public; what it shows is not.
  expect((await app.request('/agents')).status).toBe(401);
});

describeInBrowser('web page in headless Chromium', () => {
  // Here, not at the top: these close before useProviderServers closes the connection the gateway uses.
  const chrome = useBrowserAndGateway(() => t.agents, { token: TOKEN, artifacts: ARTIFACTS });

  test('start an agent, stream, approve and deny tool calls, show the answer as text; a phone-sized window', async () => {
    // The model: text streamed slowly with a call that needs approval, then the answer (hostile HTML in it).
    p.openai.enqueue(
      {
        kind: 'stream',
        text: FIRST_TEXT,
        toolCalls: [
          { id: 'call_deploy', name: 'deploy', arguments: '{"service":"api","env":"prod"}' },
          { id: 'call_web', name: 'deploy', arguments: '{"service":"web","env":"prod"}' },
        ],
        chunkDelayMs: 150,
      },
      { kind: 'stream', text: ANSWER, chunkDelayMs: 100 },
    );
    const agentId = uniqueId('web');
    const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-web-'));
    await withWorker({ taskQueue, workspaceRoot, tools: [deployTool], models: p.models() }, async () => {
      const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      // The 401s before the token is given are expected (and are how the page knows to ask for one).
      page.on('console', (m) => m.type() === 'error' && !/status of 401/.test(m.text()) && pageErrors.push(m.text()));

      // No token yet: the gateway answers 401 and the page asks for one.
      await page.goto(chrome.gateway.url);
      await page.locator('#token-form').waitFor({ state: 'visible' });
      await page.fill('#token', TOKEN);
      await page.click('#token-form button[type=submit]');
      await page.locator('#token-form').waitFor({ state: 'hidden' });
      expect(await page.evaluate("localStorage.getItem('livecontext.token')")).toBe(TOKEN);

      // Start an agent from the form; it opens.
      await page.click('#start-agent summary');
      await page.fill('#start-form [name=agentId]', agentId);
      await page.fill('#start-form [name=model]', 'openai:gpt-4.1-mini');
      await page.click('#start-form button[type=submit]');
      await page.locator('#agent-title', { hasText: agentId }).waitFor();
      await page.locator('#connection[data-status=live]').waitFor();
      await page.locator(`#agent-list [data-agent-id="${agentId}"]`).waitFor();

      // Send a message; the agent's text appears while the model still streams it.
      await page.fill('#message', 'Deploy the api to prod, please.');
      await page.press('#message', 'Enter');
      await page.locator('.msg.user', { hasText: 'Deploy the api to prod, please.' }).waitFor();
      const streaming = page.locator('.msg.assistant.streaming .text');
      await streaming.filter({ hasText: /\S/ }).waitFor();
      const partial = (await streaming.textContent()) ?? '';
      const stateThen = await t.agents.state(agentId);
      expect(FIRST_TEXT.startsWith(partial)).toBe(true);
      expect(partial.length).toBeLessThan(FIRST_TEXT.length);
      expect(stateThen.runState).toBe('PendingInput'); // the model call had not ended: nothing in history yet
      await page.screenshot({ path: path.join(ARTIFACTS, '1-streaming.png') });

      // The tool call waits for approval; the button decides it.
      const card = page.locator('.tool[data-tool-call-id="call_deploy"]');
      await card.locator('button.approve').waitFor();
      expect(await card.locator('.tool-name').textContent()).toBe('deploy');
      expect(await card.locator('.args').textContent()).toContain('"env": "prod"');
      expect(await card.textContent()).toContain('deploys to prod need approval');
      expect(await page.locator('#run-state').textContent()).toContain('waiting for approval');
      await page.screenshot({ path: path.join(ARTIFACTS, '2-approval.png') });
      await card.locator('button.approve').click();
      await card.locator('button.approve').waitFor({ state: 'detached' }); // decided: the buttons go

      // The second call is denied, with a reason the model is shown. Then both results (recorded together), and
      // the answer, complete, as text: its markup does not run.
      const second = page.locator('.tool[data-tool-call-id="call_web"]');
      await second.locator('button.deny').waitFor();
      await second.locator('input.reason').fill('web is frozen this week');
      await second.locator('button.deny').click();
      await card.locator('.result', { hasText: 'deployed api to prod' }).waitFor();
      await second.locator('.result', { hasText: 'denied by web: web is frozen this week' }).waitFor();
      await page.locator('.msg.assistant:not(.streaming)', { hasText: 'All done.' }).waitFor();
      const answer = page.locator('.msg.assistant', { hasText: 'Deployed the api' }).locator('.text');
      expect(await answer.textContent()).toBe(ANSWER);
      expect(await page.evaluate('window.__pwned')).toBeUndefined();
      expect(await page.locator('#conversation script, #conversation img').count()).toBe(0);
      expect((await t.agents.history(agentId)).filter((e) => e.kind === 'model_output')).toHaveLength(2);

      // State and history panels: usage, and a timeline with both model calls and the tool.
      await page.locator('#run-state', { hasText: 'waiting for input' }).waitFor();
      await page.locator('#usage dd').first().waitFor();
      expect(await page.locator('#usage').textContent()).toMatch(/Model calls\s*2/);
      await page.locator('#timeline .step.tool', { hasText: 'Skipped' }).waitFor();
      await page.locator('#timeline .step.model').nth(1).waitFor();
      expect(await page.locator('#timeline .step.model').count()).toBe(2);
      expect(await page.locator('#timeline .step.tool .step-note').allTextContents()).toEqual(['Success', 'Skipped']);
      await page.screenshot({ path: path.join(ARTIFACTS, '3-answered.png'), fullPage: true });

      // The list: filtered by run state (in the words every view uses) and searched by name.
      const listed = page.locator(`#agent-list [data-agent-id="${agentId}"]`);
      await page.selectOption('#agent-state', 'waiting for approval');
      await listed.waitFor({ state: 'detached' });
      await page.selectOption('#agent-state', 'waiting for input');
      await listed.waitFor();
      await page.fill('#agent-search', 'no-such-agent');
      await page.locator('#agent-list .empty', { hasText: 'No agent matches.' }).waitFor();
      await page.fill('#agent-search', agentId.slice(0, 6));
      await listed.waitFor();
      expect(pageErrors).toEqual([]);

      // The same agent on a phone-sized window: the conversation fills the width; the agents list is a drawer.
      const phone = await chrome.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
      await phone.addInitScript({ content: `localStorage.setItem('livecontext.token', ${JSON.stringify(TOKEN)})` });
      const small = await phone.newPage();
      await small.goto(`${chrome.gateway.url}/#agent=${encodeURIComponent(agentId)}`);
      await small.locator('.msg.assistant', { hasText: 'All done.' }).waitFor();
      const box = (await small.locator('#conversation').boundingBox())!;
      expect(box.width).toBeGreaterThan(350);
      expect(box.width).toBeLessThanOrEqual(390);
      expect(await small.locator('#agents').isVisible()).toBe(false);
      expect(await small.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390); // nothing wider than the screen
      await small.screenshot({ path: path.join(ARTIFACTS, '4-phone.png') });
      await small.click('#toggle-agents');
      await small.locator(`#agent-list [data-agent-id="${agentId}"]`).waitFor();
      await small.screenshot({ path: path.join(ARTIFACTS, '5-phone-agents.png') });
      await phone.close();
      await context.close();
      // The gateway's event feeds notice the closed pages at their next poll: let those last calls finish
      // while the worker still answers (a query left waiting for a worker outlives the test's connection).
      await new Promise((resolve) => setTimeout(resolve, 1000));
    });
  });

  test('tasks and notebook follow the agent as it changes them (state deltas), as text', async () => {
    const agentId = uniqueId('web-demo');
    await withWorker({ taskQueue, workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-web-')) }, async () => {
      await t.agents.start(agentId, { model: 'demo:offline' });
      const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
      await context.addInitScript({ content: `localStorage.setItem('livecontext.token', ${JSON.stringify(TOKEN)})` });
      const page = await context.newPage();
      await page.goto(`${chrome.gateway.url}/#agent=${encodeURIComponent(agentId)}`);
      await page.locator('#connection[data-status=live]').waitFor();
      await page.locator('#tasks .empty').waitFor();

      await page.fill('#message', 'plan buy milk, call mum');
      await page.click('#send');
      await page.locator('#tasks .task.pending', { hasText: 'call mum' }).waitFor();
      await page.fill('#message', 'done 1');
      await page.click('#send');
      await page.locator('#tasks .task.done', { hasText: 'buy milk' }).waitFor();
      expect(await page.locator('#tasks .task').allTextContents()).toEqual(['● 1. buy milk', '○ 2. call mum']);

      // A host write to the notebook (another client) shows up, markup and all, as text.
      const written = await chrome.gateway.request('POST', `/agents/${agentId}/notebook`, { set: 'likes <b>green</b> tea' }, { token: TOKEN });
      expect(written.status).toBe(200);
      await page.locator('#notebook', { hasText: 'likes <b>green</b> tea' }).waitFor();
      expect(await page.locator('#notebook b').count()).toBe(0);
      await page.screenshot({ path: path.join(ARTIFACTS, '7-tasks-notebook.png') });
      await context.close();
      await new Promise((resolve) => setTimeout(resolve, 1000)); // as above: the feeds' last calls end
    });
  });

  test('text streamed by a call that is then made again is marked as cut short; the new answer follows whole', async () => {
    const final = Array.from({ length: 12 }, (_, i) => `fresh${i}`).join(' ');
    // Attempt 1 streams one chunk and stalls past the stall timeout; attempt 2 answers.
    p.openai.enqueue({ kind: 'stream', text: 'stale stale stale', chunkDelayMs: 1500 }, { kind: 'stream', text: final, chunkDelayMs: 50 });
    const agentId = uniqueId('web-retry');
    await withWorker({ taskQueue, models: p.models(), liveness: { firstTokenTimeoutMs: 8000, stallTimeoutMs: 1200 } }, async () => {
      await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
      const context = await chrome.browser.newContext();
      await context.addInitScript({ content: `localStorage.setItem('livecontext.token', ${JSON.stringify(TOKEN)})` });
      const page = await context.newPage();
      await page.goto(`${chrome.gateway.url}/#agent=${encodeURIComponent(agentId)}`);
      await page.locator('#connection[data-status=live]').waitFor();
      await page.fill('#message', 'go');
      await page.click('#send');
      await page.locator('.msg.assistant', { hasText: 'stale' }).waitFor();
      await page.locator('.msg.assistant:not(.streaming)', { hasText: 'fresh11' }).waitFor();
      const messages = page.locator('.msg.assistant');
      expect(await messages.count()).toBe(2);
      expect(await messages.nth(0).getAttribute('class')).toContain('superseded');
      expect(await messages.nth(0).locator('.text').textContent()).toMatch(/^stale/);
      expect(await messages.nth(1).locator('.text').textContent()).toBe(final);
      // The timeline says the call took a second attempt (from the output's metadata).
      await page.locator('#timeline .step.model .step-note', { hasText: 'attempt 2' }).waitFor();
      await context.close();
      await new Promise((resolve) => setTimeout(resolve, 1000)); // as above: the feeds' last calls end
    });
  });

  test('a model call that blocked the agent stays on the timeline as a failed step after the retry answers', async () => {
    p.openai.enqueue({ kind: 'error', status: 401 }, { kind: 'stream', text: 'answered after the retry' });
    const agentId = uniqueId('web-failure');
    await withWorker({ taskQueue, models: p.models() }, async () => {
      await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
      await expect(t.agents.ask(agentId, 'hello')).resolves.toMatchObject({ status: 'error' });
      await t.agents.retry(agentId);
      await expect(t.agents.waitForAnswer(agentId, 1)).resolves.toMatchObject({ status: 'answered' });
      const context = await chrome.browser.newContext();
      await context.addInitScript({ content: `localStorage.setItem('livecontext.token', ${JSON.stringify(TOKEN)})` });
      const page = await context.newPage();
      await page.goto(`${chrome.gateway.url}/#agent=${encodeURIComponent(agentId)}`);
      const failed = page.locator('#timeline .step.failure');
      await failed.waitFor();
      expect(await failed.locator('.step-label').textContent()).toBe('model openai:gpt-4.1-mini failed');
      expect(await failed.locator('.step-note').textContent()).toMatch(/^ModelError\.Authentication · 401/);
      await page.locator('#timeline .step.model').waitFor(); // the retry's answer, after it
      await context.close();
      await new Promise((resolve) => setTimeout(resolve, 1000)); // as above: the feeds' last calls end
    });
  });

  test('the page resumes after its gateway restarts mid-answer: the streamed text is whole, nothing repeated', async () => {
    const text = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    p.openai.enqueue({ kind: 'stream', text, chunkDelayMs: 150 });
    const agentId = uniqueId('web-resume');
    const tokens = tokensFromEnv({ LIVECONTEXT_GATEWAY_TOKEN: TOKEN });
    let own = await serveGateway({ agents: t.agents, tokens, port: 0, host: '127.0.0.1', log: () => {} });
    const port = own.port;
    await withWorker({ taskQueue, models: p.models() }, async () => {
      await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
      const context = await chrome.browser.newContext();
      await context.addInitScript({ content: `localStorage.setItem('livecontext.token', ${JSON.stringify(TOKEN)})` });
      const page = await context.newPage();
      await page.goto(`${own.url}/#agent=${encodeURIComponent(agentId)}`);
      await page.locator('#connection[data-status=live]').waitFor();
      await page.fill('#message', 'Count, slowly.');
      await page.click('#send');
      await page.locator('.msg.assistant.streaming .text').filter({ hasText: /\S/ }).waitFor();

      // The gateway goes away mid-answer (every connection cut) and comes back on the same port.
      await own.close();
      await page.locator('#connection[data-status=reconnecting]').waitFor();
      expect((await t.agents.state(agentId)).runState).toBe('PendingInput'); // still streaming
      own = await serveGateway({ agents: t.agents, tokens, port, host: '127.0.0.1', log: () => {} });
      await page.locator('#connection[data-status=live]').waitFor();

      await page.locator('.msg.assistant:not(.streaming)').waitFor();
      expect(await page.locator('.msg.assistant .text').allTextContents()).toEqual([text]);
      expect(await page.locator('.msg.user').count()).toBe(1);
      await page.screenshot({ path: path.join(ARTIFACTS, '6-resumed.png') });
      await context.close();
      await new Promise((resolve) => setTimeout(resolve, 1000)); // as above: the feeds' last calls end
    });
    await own.close();
  });
});
