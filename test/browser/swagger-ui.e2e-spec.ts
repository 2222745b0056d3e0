import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../support/test-env.js';
import { TestApp } from '../support/test-app.js';
import { describeInBrowser, launchChromium } from './support/chromium.js';

/**
 * Swagger UI in a real browser (Debian's chromium, driven by playwright-core): what an integrator
 * does on /docs — sign in with "Try it out", paste the token in "Authorize", call an operation —
 * works against the running service (CSP, CORS-free same origin, bearer scheme, answers shown).
 *
 * `npm run test:browser`. Needs /usr/bin/chromium (`apt-get install -y chromium`); without it the
 * test fails, unless BROWSER_TESTS=skip says to skip it on purpose.
 */
const SCREENSHOT = join(fileURLToPath(new URL('../..', import.meta.url)), 'test-results', 'swagger-ui.png');

describeInBrowser('Swagger UI in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let baseUrl: string;

  beforeAll(async () => {
    t = await TestApp.create();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs in with "Try it out", authorizes with the token and shows the 200 answer of GET /api/v1/roles', async () => {
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(`${baseUrl}/docs`);
    await page.locator('.swagger-ui .information-container .title').waitFor();

    // 1. POST /api/v1/auth/login through "Try it out"
    const login = operation(page, 'post', '/api/v1/auth/login');
    const loginAnswer = await tryItOut(login, JSON.stringify({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD }));
    expect(loginAnswer.status).toBe('200');
    const accessToken = (JSON.parse(loginAnswer.body) as { accessToken?: unknown }).accessToken;
    expect(typeof accessToken).toBe('string');

    // 2. "Authorize" with the token (the bearer scheme's value field)
    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog
      .locator('input[type="text"], input[type="password"]')
      .first()
      .fill(accessToken as string);
    await dialog.locator('.auth-btn-wrapper button.authorize').click();
    await dialog.locator('button.btn-done').click();
    await expect(page.locator('.auth-wrapper button.authorize.locked').count()).resolves.toBe(1);

    // 3. GET /api/v1/roles, sent with the token the UI holds now
    const roles = operation(page, 'get', '/api/v1/roles');
    const rolesAnswer = await tryItOut(roles);
    expect(rolesAnswer.status).toBe('200');
    expect(rolesAnswer.body).toContain('"cajero"');
    expect(rolesAnswer.curl).toMatch(/Authorization: Bearer ey/);

    // the whole GET /api/v1/roles block: the bearer curl line, the 200 and the body shown
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await roles.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it.each(['/docs/', '/docs/index.html'])('shows the same page at %s, every asset loaded', async (path) => {
    const failed: string[] = [];
    const listener = (response: { status: () => number; url: () => string }) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    };
    page.on('response', listener);
    await page.goto(`${baseUrl}${path}`);
    await page.locator('.swagger-ui .information-container .title').waitFor({ timeout: 10_000 });
    page.off('response', listener);
    expect(failed).toEqual([]);
    await expect(operation(page, 'get', '/api/v1/roles').count()).resolves.toBe(1);
  });

  it('loads over plain HTTP from a host name that is not localhost, as on a shared development server', async () => {
    // a name the browser does not treat as a secure context (localhost and 127.0.0.1 are): a CSP
    // with upgrade-insecure-requests made it fetch the page's assets over https, and the UI stayed blank
    const remote = await launchChromium(['--host-resolver-rules=MAP docs.medios.test 127.0.0.1']);
    try {
      const other = await remote.newPage();
      const failed: string[] = [];
      other.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText ?? ''}`));
      other.on('response', (response) => void (response.status() >= 400 && failed.push(`${response.status()} ${response.url()}`)));
      await other.goto(`${baseUrl.replace('127.0.0.1', 'docs.medios.test')}/docs`);
      await other.locator('.swagger-ui .information-container .title').waitFor({ timeout: 10_000 });
      expect(failed).toEqual([]);
      await expect(operation(other, 'get', '/api/v1/roles').count()).resolves.toBe(1);
    } finally {
      await remote.close();
    }
  });
});

/** The operation block of Swagger UI for a method and path. */
function operation(page: Page, method: string, path: string): Locator {
  return page.locator(`.opblock.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
}

/** Expands an operation, presses "Try it out", fills the JSON body if any, executes it and reads the answer shown. */
async function tryItOut(op: Locator, body?: string): Promise<{ status: string; body: string; curl: string }> {
  await op.locator('.opblock-summary').first().click();
  await op.getByRole('button', { name: 'Try it out' }).click();
  if (body !== undefined) await op.locator('textarea.body-param__text').fill(body);
  await op.getByRole('button', { name: 'Execute' }).click();
  const live = op.locator('.live-responses-table .response').first();
  await live.waitFor();
  return {
    status: (await live.locator('.response-col_status').innerText()).trim(),
    body: await live.locator('.response-col_description .highlight-code pre').first().innerText(),
    curl: await op.locator('.curl-command').innerText(),
  };
}
