import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Browser, type Page } from 'playwright-core';
import ts from 'typescript';
import { TokenForge } from '../auth/support/auth-helpers.js';
import { type CreatedUser, TestApp } from '../support/test-app.js';
import { describeInBrowser, launchChromium } from './support/chromium.js';

/**
 * Several tabs of the console, one signed-in session: the typed client's `sharedTokenStore()`
 * (IndexedDB) and `browserLock()` (Web Locks) in a real browser. In every round the stored access
 * token has expired and all tabs call at once: each meets a 401, and the refreshes must be settled
 * so that exactly one tab presents the refresh token and the others take the pair it stored.
 * A second refresh with the spent token would be reuse (the service revokes the session), which is
 * how the earlier advice, a localStorage copy re-read inside the lock, lost sessions: each
 * renderer's localStorage is synced from the others asynchronously, so a tab could re-read the
 * pair another tab had already replaced.
 *
 * The page gets index.ts with its types stripped (TypeScript's transpiler) and openapi-fetch's
 * own browser build, both served by the test's static server; nothing is built beforehand.
 * `npm run test:browser`; BROWSER_TESTS=skip skips it when /usr/bin/chromium is missing.
 */
const TABS = 3;
const ROUNDS = 20;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface TabState {
  sessionEnded: number;
  statuses: string[];
}
interface StoredPair {
  accessToken: string;
  refreshToken: string;
}
interface Tab {
  store: { get(): Promise<StoredPair | undefined>; set(tokens: StoredPair | undefined): Promise<void> };
  state: TabState;
  me(): Promise<{ status: number; username: string | null }>;
}
declare const window: { tab: Tab };

/** The files the console's origin serves: the page, the client as a browser module, openapi-fetch. */
function consoleFiles(): Map<string, { type: string; body: string }> {
  const client = ts.transpileModule(readFileSync(`${ROOT}/clients/typescript/index.ts`, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const js = 'text/javascript; charset=utf-8';
  return new Map([
    ['/', { type: 'text/html; charset=utf-8', body: readFileSync(fileURLToPath(new URL('./fixtures/tabs.html', import.meta.url)), 'utf8') }],
    ['/client.js', { type: js, body: client }],
    ['/openapi-fetch.js', { type: js, body: readFileSync(`${ROOT}/node_modules/openapi-fetch/dist/index.mjs`, 'utf8') }],
  ]);
}

describeInBrowser('one session shared by several tabs, in a real browser', () => {
  let t: TestApp;
  let site: Server;
  let browser: Browser;
  let tabs: Page[];
  let apiUrl: string;
  let siteUrl: string;
  let user: CreatedUser;
  let forge: TokenForge;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const files = consoleFiles();
    site = createServer((req, res) => {
      const file = files.get(new URL(req.url ?? '/', 'http://console').pathname);
      res.writeHead(file ? 200 : 404, { 'content-type': file?.type ?? 'text/plain' });
      res.end(file?.body ?? 'not found');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

    t = await TestApp.create({ env: { CORS_ORIGINS: siteUrl } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    forge = new TokenForge(t);
    user = await t.createUser('supervisor');

    browser = await launchChromium();
    // one profile, so one origin's storage and locks, as the tabs of one browser window
    const context = await browser.newContext();
    tabs = [];
    for (let i = 0; i < TABS; i++) {
      const page = await context.newPage();
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(`${siteUrl}/?api=${encodeURIComponent(apiUrl)}`);
      await page.locator('body[data-ready="true"]').waitFor();
      tabs.push(page);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => site?.close(resolve));
  });

  it(`keeps the session through ${ROUNDS} rounds of ${TABS} tabs meeting an expired access token at once: one refresh a round, no reuse`, async () => {
    const [first] = tabs;
    if (!first) throw new Error('no tab');
    await first.evaluate((pair) => window.tab.store.set(pair), { accessToken: user.token, refreshToken: user.refreshToken });
    const past = Math.floor(Date.now() / 1000) - 60;
    const tabsThatMet401: number[] = [];

    for (let round = 1; round <= ROUNDS; round++) {
      const current = await first.evaluate(() => window.tab.store.get());
      if (!current) throw new Error(`round ${round}: the store is empty`);
      // what every tab holds once the access token's 15 minutes are over (signed by the service's key)
      const expired = forge.rs256(forge.claims({ ...user, rol: 'supervisor', token: current.accessToken }, { iat: past - 900, exp: past }));
      await first.evaluate((pair) => window.tab.store.set(pair), { accessToken: expired, refreshToken: current.refreshToken });
      // every tab reads the expired pair before any of them calls
      await Promise.all(tabs.map((tab) => tab.waitForFunction(async (token) => (await window.tab.store.get())?.accessToken === token, expired)));
      const before = await Promise.all(tabs.map((tab) => tab.evaluate(() => window.tab.state.statuses.length)));

      const answers = await Promise.all(tabs.map((tab) => tab.evaluate(() => window.tab.me())));

      expect({ round, answers }).toEqual({ round, answers: tabs.map(() => ({ status: 200, username: user.username })) });
      const statuses = await Promise.all(tabs.map((tab, i) => tab.evaluate((from) => window.tab.state.statuses.slice(from), before[i] ?? 0)));
      tabsThatMet401.push(statuses.filter((s) => s.includes('/api/v1/auth/me 401')).length);
      // one refresh a round, whichever tab made it
      expect({ round, refreshes: statuses.flat().filter((s) => s.startsWith('/api/v1/auth/refresh')) }).toEqual({
        round,
        refreshes: ['/api/v1/auth/refresh 200'],
      });
    }

    process.stdout.write(`[cross-tab refresh] tabs that met a 401, per round: ${tabsThatMet401.join(' ')}\n`);
    // the rounds did race: in most of them more than one tab met the 401 and waited on the lock
    expect(tabsThatMet401.filter((n) => n > 1).length).toBeGreaterThan(ROUNDS / 2);
    for (const tab of tabs) expect(await tab.evaluate(() => window.tab.state.sessionEnded)).toBe(0);
    expect(pageErrors).toEqual([]);

    const sid = String(JSON.parse(Buffer.from(user.token.split('.')[1] ?? '', 'base64url').toString('utf8')).sid);
    const [session] = await t.query<{ ended_at: Date | null }>('SELECT ended_at FROM sessions WHERE id = $1', [sid]);
    expect(session).toEqual({ ended_at: null });
    expect(await t.securityEvents('refresh.reuse_detected')).toEqual([]);
    const rotations = (await t.securityEvents('refresh.issue')).filter((e) => String(e.session_id).toLowerCase() === sid && e.result === 'success');
    expect(rotations).toHaveLength(ROUNDS);
  });
});
