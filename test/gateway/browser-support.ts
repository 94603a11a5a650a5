/**
 * What the web page tests share: the Chromium they drive (without one their browser tests are skipped,
 * saying why), and for a describe block that browser and a gateway with a full token, opened before its
 * tests and closed after them.
 */
import { mkdirSync } from 'node:fs';
import { type Browser, type BrowserContextOptions, type Page, chromium } from 'playwright-core';
import type { AgentClient } from '../../client/agent-client';
import { type TestGateway, startTestGateway } from '../support/gateway';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { findChromium, chromiumCandidates } = require('../../scripts/ensure-chromium.cjs');

const executablePath: string | null = findChromium();

/** `describe` when a Chromium is found; else `describe.skip`, once `file` has warned where it looked. */
export function describeInBrowserFor(file: string): jest.Describe {
  if (executablePath) return describe;
  console.warn(
    `${file}: SKIPPED — no Chromium at ${chromiumCandidates().join(', ')} (set LIVECONTEXT_CHROMIUM_PATH; npm test installs Debian's chromium as root).`,
  );
  return describe.skip;
}

export interface BrowserAndGateway {
  browser: Browser;
  gateway: TestGateway;
  /** A page with the token in its storage, opened on `url`; its errors (and with `failedResponses`, its 4xx/5xx) collected. */
  openPage(url: string, options?: BrowserContextOptions & { failedResponses?: boolean }): Promise<{ page: Page; errors: string[]; close(): Promise<void> }>;
}

/**
 * A headless Chromium and a gateway whose full token is `token`, for the describe block it is called in
 * (read `browser` and `gateway` inside tests); screenshots go to `artifacts`, made first.
 */
export function useBrowserAndGateway(agents: () => AgentClient, o: { token: string; artifacts: string }): BrowserAndGateway {
  const set = {
    async openPage(url, options = {}) {
      const { failedResponses, ...contextOptions } = options;
      const context = await set.browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
      await context.addInitScript({ content: `localStorage.setItem('livecontext.token', ${JSON.stringify(o.token)})` });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      if (failedResponses) page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
      await page.goto(url);
      return {
        page,
        errors,
        close: async () => {
          await context.close();
          await new Promise((resolve) => setTimeout(resolve, 1000)); // the feeds' last calls end while the worker answers
        },
      };
    },
  } as BrowserAndGateway;
  beforeAll(async () => {
    mkdirSync(o.artifacts, { recursive: true });
    set.browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
    set.gateway = await startTestGateway(agents(), { fullToken: o.token });
  });
  afterAll(async () => {
    await set.browser?.close();
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the gateway's feeds see their pages gone
    await set.gateway?.close();
  });
  return set;
}
