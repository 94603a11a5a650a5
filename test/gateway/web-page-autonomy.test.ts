/**
 * The web chat and agents that work on their own (issue 17), in a real headless Chromium against a real
 * gateway, an in-process worker with scripted models, and the dev server:
 * - a parent delegating to two sub-agents shows them in its tree with each child's own run state (read
 *   from GET /agents/<child>); a child's link opens it like any agent, with a link back to its parent;
 *   the parent's history loads when it is opened again even while the child's is still loading (held here);
 * - a looping model stopped by its budget (`turnModelCalls: 2`) shows which budget and what to do, and
 *   the Retry button lets it go on (to the next stop);
 * - the Interrupt button ends a turn held by a slow tool (the tool sees its cancellation), and a question
 *   the model asks with `ask_user` shows as the agent's question.
 * Screenshots go to test-artifacts/web-page-autonomy/. Skipped (saying why) only when no Chromium is found.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { type Script, ScriptedModelProvider } from '../../activities/index';
import { unwrap } from '../../agent/index';
import { delegatorScript, echoStep, researcherScript } from '../fixtures/scripts';
import { slowReportTool } from '../fixtures/test-tools';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';
import { describeInBrowserFor, useBrowserAndGateway } from './browser-support';

const describeInBrowser = describeInBrowserFor('web-page-autonomy.test');

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/web-page-autonomy');
const TOKEN = 'page-autonomy-token';
const { t, taskQueue } = useTestConnection('web-autonomy');
const controlDir = mkdtempSync(path.join(tmpdir(), 'lc-web-ctl-'));

/** Calls the task-list tool on every reply: only a budget stops it. */
const looper: Script = (req) => ({ toolCalls: [{ name: 'todo_add', args: { titles: [`step ${req.step}`] } }] });

/** "report <topic>": calls the slow tool; "ask": asks the person a question; after tool results, says so. */
const worker: Script = (req) => {
  const last = unwrap(req.messages[req.messages.length - 1]);
  if (last.kind === 'tool_results') return { text: 'The report is done.' };
  const text = last.kind === 'model_input' ? last.sections.map((s) => s.content).join(' ') : '';
  const report = /^report (\S+)$/.exec(text);
  if (report) return { text: 'Building the report.', toolCalls: [{ name: 'slow_report', args: { topic: report[1] } }] };
  if (text === 'ask') return { toolCalls: [{ name: 'ask_user', args: { question: 'Which <env> should I use: staging or prod?' } }] };
  return echoStep(req);
};

const slowSeen: string[] = [];
const slowReport = slowReportTool(slowSeen);

const models = () => [new ScriptedModelProvider({ delegator: delegatorScript, researcher: researcherScript(controlDir), looper, worker })];

describeInBrowser('web page: sub-agents, budgets, interrupts, questions (headless Chromium)', () => {
  const chrome = useBrowserAndGateway(() => t.agents, { token: TOKEN, artifacts: ARTIFACTS });

  /** A page with the token, opened on `agentId`, its event stream live; page errors collected. */
  async function openPage(agentId: string): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
    const opened = await chrome.openPage(`${chrome.gateway.url}/#agent=${encodeURIComponent(agentId)}`, { failedResponses: true });
    await opened.page.locator('#connection[data-status=live]').waitFor();
    return opened;
  }

  async function send(page: Page, text: string) {
    await page.fill('#message', text);
    await page.click('#send');
    await page.locator('.msg.user', { hasText: text }).last().waitFor();
  }

  test("a parent shows its sub-agents with each child's state; a child opens from its link and links back", async () => {
    await withWorker({ taskQueue, models: models() }, async () => {
      const parent = uniqueId('lead');
      const [a, b] = [uniqueId('moss'), uniqueId('fern')];
      await t.agents.start(parent, {
        model: 'scripted:delegator',
        parallelTools: true,
        subAgents: { researcher: { model: 'scripted:researcher', description: 'finds things out' } },
      });
      const { page, errors, close } = await openPage(parent);
      let releaseChildHistory = () => {};
      try {
        expect(await page.locator('#agent-tree').isVisible()).toBe(false); // in no tree yet

        await send(page, `research ${a} and ${b}`);
        // Both children in the tree: working, as the parent sees them, and their own run state (a model call held open).
        const children = page.locator('#agent-tree .tree-child');
        await eventually(async () => (await children.count()) === 2, 60_000, 'two children in the tree');
        const ids = (await t.agents.state(parent)).subAgents!.map((s) => s.agentId);
        for (const id of ids) {
          const row = page.locator(`#agent-tree .tree-child[data-agent-id="${id}"]`);
          await row.locator('.tree-meta', { hasText: 'researcher · working' }).waitFor();
          await row.locator('.tree-state', { hasText: 'working · calling the model' }).waitFor();
          // The delegating tool call in the conversation links to its child too.
          await page.locator(`.tool a.agent-link[data-agent-id="${id}"]`).waitFor();
        }
        await page.screenshot({ path: path.join(ARTIFACTS, '1-parent-tree.png') });

        // The first child's history is held unanswered, as a loaded gateway can: its load is still under way
        // when the parent is opened again, and must neither hold up nor swallow the parent's (the tree's
        // answered children come from the parent's history).
        const childHistory = new Promise<void>((resolve) => (releaseChildHistory = resolve));
        let childHistoryAsked!: () => void;
        const childHistoryPending = new Promise<void>((resolve) => (childHistoryAsked = resolve));
        await page.route(
          (url) => url.pathname === `/agents/${encodeURIComponent(ids[0])}/history`,
          async (route) => {
            childHistoryAsked();
            await childHistory;
            await route.continue().catch(() => {}); // the page may be closed by then
          },
        );

        // The first child opens from its link, like any agent: its task as its input, a link up to its parent.
        await page.click(`#agent-tree a.agent-link[data-agent-id="${ids[0]}"]`);
        await page.locator('#agent-title', { hasText: ids[0] }).waitFor();
        expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#agent=${ids[0]}`);
        await page.locator('.msg.user', { hasText: a }).waitFor();
        const up = page.locator('#agent-tree .tree-parent a.agent-link');
        await up.waitFor();
        expect(await up.textContent()).toBe(parent);
        expect(await page.locator('#agent-tree .tree-parent').textContent()).toMatch(/Sub-agent of .*depth 1/);

        // It answers once released; then back to the parent, whose turn ends with both results.
        writeFileSync(path.join(controlDir, `release-${a}`), '');
        writeFileSync(path.join(controlDir, `release-${b}`), '');
        await page.locator('.msg.assistant', { hasText: `research on ${a}` }).waitFor();
        await page.screenshot({ path: path.join(ARTIFACTS, '2-child.png') });
        await childHistoryPending;
        await up.click();
        await page.locator('#agent-title', { hasText: parent }).waitFor();
        await page
          .locator('.msg.assistant', { hasText: `results: Success: research on ${a} | Success: research on ${b}` })
          .waitFor()
          .catch(async (err: Error) => {
            // Which side failed: the agent (no answer in its history) or the page (an answer it did not show).
            const answered = (await t.agents.history(parent)).some((e) => e.kind === 'model_output' && e.contents.join('').startsWith('results:'));
            const status = answered
              ? 'answered, in its history: the page did not show it'
              : `not answered; its state: ${JSON.stringify(await t.agents.state(parent))}`;
            throw new Error(`${err.message}\nThe parent has ${status}. The page shows: ${JSON.stringify(await page.locator('.msg').allTextContents())}`);
          });
        // The batch is over: the children are still in the tree, from history, as answered.
        for (const id of ids) await page.locator(`#agent-tree .tree-child[data-agent-id="${id}"] .tree-meta`, { hasText: 'researcher · answered' }).waitFor();
        expect(await children.count()).toBe(2);
        await page.screenshot({ path: path.join(ARTIFACTS, '3-parent-answered.png') });
        expect(errors).toEqual([]);
      } finally {
        releaseChildHistory();
        await close(); // also when it failed: no page left polling a gateway whose worker is gone
      }
    });
  });

  test('a budget stop says which budget and what to do; Retry lets the agent go on', async () => {
    await withWorker({ taskQueue, models: models() }, async () => {
      const agentId = uniqueId('looper');
      const created = await chrome.gateway.request('POST', '/agents', { agentId, model: 'scripted:looper', budgets: { turnModelCalls: 2 } }, { token: TOKEN });
      expect(created.status).toBe(201);
      const { page, errors, close } = await openPage(agentId);
      try {
        await send(page, 'go');

        const stop = page.locator('.run-error.budget');
        await stop.waitFor();
        expect(await stop.getAttribute('data-code')).toBe('Budget.TurnModelCalls');
        expect(await stop.locator('strong').textContent()).toBe('Stopped by its budget of model calls per turn (Budget.TurnModelCalls): ');
        const { lastError } = await t.agents.state(agentId);
        expect(await stop.locator('.message').textContent()).toBe(lastError!.message); // what to do, in the agent's words
        expect(lastError!.message).toMatch(/configure|retry/i);
        await page.locator('#run-state', { hasText: 'blocked by an error · its budget of model calls per turn' }).waitFor();
        expect(await page.locator('#interrupt').isVisible()).toBe(true); // the turn is open: it can be given up
        await page.screenshot({ path: path.join(ARTIFACTS, '4-budget.png') });
        const calls = async () => (await t.agents.history(agentId)).filter((e) => e.kind === 'model_output').length;
        expect(await calls()).toBe(2);
        expect(await page.locator('.run-error').count()).toBe(1); // one stop, said once (not also when read mid-loop)

        // Retry: as much again from where it stopped, then the budget stops it again (a second notice).
        await stop.locator('button.retry').click();
        await stop.locator('button.retry', { hasText: 'Retried' }).waitFor();
        await eventually(async () => (await page.locator('.run-error.budget').count()) === 2, 60_000, 'the second budget stop');
        expect(await calls()).toBe(4);
        expect(errors).toEqual([]);
      } finally {
        await close(); // also when it failed: no page left polling a gateway whose worker is gone
      }
    });
  });

  test('Interrupt ends a turn held by a slow tool; a question the model asks shows as its question', async () => {
    await withWorker({ taskQueue, models: models(), tools: [slowReport] }, async () => {
      const agentId = uniqueId('worker');
      const topic = uniqueId('topic');
      await t.agents.start(agentId, { model: 'scripted:worker' });
      const { page, errors, close } = await openPage(agentId);
      try {
        expect(await page.locator('#interrupt').isVisible()).toBe(false); // idle: nothing to interrupt

        await send(page, `report ${topic}`);
        await eventually(() => slowSeen.includes(`started ${topic}`), 60_000, 'the slow tool to start');
        const button = page.locator('#interrupt');
        await button.waitFor();
        await page.screenshot({ path: path.join(ARTIFACTS, '5-working.png') });
        await button.click();
        await page.locator('.note.turn-end', { hasText: 'The turn was interrupted by web' }).waitFor();
        await eventually(() => slowSeen.includes(`cancelled ${topic}`), 30_000, 'the tool to see its cancellation');
        await button.waitFor({ state: 'hidden' });
        await page.locator('#run-state', { hasText: 'waiting for input' }).waitFor();
        expect((await t.agents.history(agentId)).at(-1)).toMatchObject({ kind: 'turn_end', reason: 'interrupted', by: 'web' });
        const cut = page.locator('.tool', { hasText: 'slow_report' });
        await cut.locator('.result', { hasText: 'Interrupted by web' }).waitFor();
        await cut.locator('.status', { hasText: 'skipped' }).waitFor(); // its recorded status, from history

        // The next turn: the model asks a question (markup in it stays text); it is shown as the agent's.
        await send(page, 'ask');
        const question = page.locator('.msg.question');
        await question.waitFor();
        expect(await question.locator('.who').textContent()).toBe('The agent asks');
        expect(await question.locator('.text').textContent()).toBe('Which <env> should I use: staging or prod?');
        expect(await page.locator('.tool.ask-user').isVisible()).toBe(false); // its tool card gives way to the question
        await page.screenshot({ path: path.join(ARTIFACTS, '6-question.png') });
        // A reload shows the same (the events are derived from history).
        await page.reload();
        await page.locator('.msg.question', { hasText: 'staging or prod' }).waitFor();
        await page.locator('.note.turn-end').waitFor();
        expect(errors).toEqual([]);
      } finally {
        await close(); // also when it failed: no page left polling a gateway whose worker is gone
      }
    });
  });
});
