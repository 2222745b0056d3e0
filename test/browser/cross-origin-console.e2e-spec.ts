import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../support/test-env.js';
import { TestApp } from '../support/test-app.js';
import { describeInBrowser, launchChromium } from './support/chromium.js';

/**
 * The admin console on its own origin, in a real browser (Debian's chromium through
 * playwright-core): a page served by a second server signs in and creates, reads, saves with
 * If-Match, meets a conflict (412, shown to the user) and deletes a role — every request a
 * cross-origin fetch with a JSON content type, Authorization and If-Match, so each PUT and DELETE
 * goes through a CORS preflight the API must allow (CORS_ORIGINS = the page's origin).
 *
 * `npm run test:browser`. Needs /usr/bin/chromium (`apt-get install -y chromium`); without it the
 * test fails, unless BROWSER_TESTS=skip says to skip it on purpose.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCREENSHOT = join(ROOT, 'test-results', 'cross-origin-console.png');
const PAGE = readFileSync(fileURLToPath(new URL('./fixtures/console.html', import.meta.url)), 'utf8');

describeInBrowser('the admin console on another origin, in a real browser', () => {
  let t: TestApp;
  let site: Server;
  let browser: Browser;
  let page: Page;
  let apiUrl: string;
  let siteUrl: string;

  beforeAll(async () => {
    // the console's own origin: a static server on another port
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

    t = await TestApp.create({ env: { CORS_ORIGINS: siteUrl } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => site?.close(resolve));
  });

  it('signs in, creates, reads, saves with If-Match, shows a 412 conflict and deletes, every request allowed by CORS', async () => {
    const failed: string[] = [];
    const consoleErrors: string[] = [];
    page.on('requestfailed', (r) => failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    page.on('pageerror', (e) => consoleErrors.push(e.message));

    await page.goto(`${siteUrl}/?api=${encodeURIComponent(apiUrl)}`);
    expect(new URL(page.url()).origin).not.toBe(new URL(apiUrl).origin);
    const message = page.locator('#message');
    const step = async (button: string, expected: RegExp) => {
      await page.locator(button).click();
      try {
        await page.locator('#message', { hasText: expected }).waitFor({ timeout: 15_000 });
      } catch {
        throw new Error(`after ${button} the page shows "${await message.innerText()}", expected ${expected}`);
      }
    };

    await page.fill('#username', ADMIN_USERNAME);
    await page.fill('#password', ADMIN_PASSWORD);
    await step('#login', /Sesión iniciada/);

    await page.fill('#codigo', 'consola_cors');
    await page.fill('#nombre', 'Consola');
    await step('#create', /Creado consola_cors en \/api\/v1\/roles\/consola_cors/);
    const createdEtag = await page.locator('#etag').innerText();
    expect(createdEtag).toMatch(/^"[A-Za-z0-9_-]+"$/);

    await step('#read', /Leído: Consola/);
    expect(await page.locator('#etag').innerText()).toBe(createdEtag);

    await page.fill('#nombre', 'Consola editada');
    await step('#save', /Guardado: Consola editada/);
    const savedEtag = await page.locator('#etag').innerText();
    expect(savedEtag).not.toBe(createdEtag);

    // another administrator's edit, based on the first read: refused and told to the user
    await step('#save-stale', /Otro administrador cambió este registro .*412 version_obsoleta/);
    await expect(message.getAttribute('class')).resolves.toBe('error');
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-412.png'), fullPage: true });

    await step('#delete', /Rol desactivado/);

    const lines = await page.locator('#log li').allInnerTexts();
    const statuses = lines.map((l) => /^(\w+) \S+ → (\d+)/.exec(l)?.slice(1).join(' '));
    expect(statuses).toEqual(['POST 200', 'POST 201', 'GET 200', 'PUT 200', 'PUT 412', 'DELETE 204']);
    // the page could read the exposed headers: ETag, Location and the correlation id
    expect(lines[1]).toMatch(/location=\/api\/v1\/roles\/consola_cors correlation=[0-9a-f-]{36}/);
    expect(lines[3]).toContain(`etag=${savedEtag}`);
    // PUT and DELETE with If-Match and a JSON content type are not simple requests: the browser sent
    // them only because their preflights were allowed, and nothing was blocked
    expect(failed).toEqual([]);
    expect(consoleErrors.filter((e) => !/412|Precondition Failed/.test(e))).toEqual([]);

    // the store agrees with what the page showed
    const role = await t.get('/api/v1/roles/consola_cors', { token: await t.adminToken() });
    expect(role.body).toMatchObject({ nombre: 'Consola editada', activo: false });

    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });
});
