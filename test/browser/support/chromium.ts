import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import playwright, { type Browser } from 'playwright-core';

/** Debian's chromium (`apt-get install -y chromium`), which the browser tests drive through playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

const missing = () => !existsSync(CHROMIUM);

/**
 * `describe` for tests that drive a real browser. Without /usr/bin/chromium they fail — a browser
 * test that silently does not run proves nothing — unless BROWSER_TESTS=skip says to skip them on
 * purpose; then one test in their place says so on stdout.
 */
export function describeInBrowser(title: string, body: () => void): void {
  if (missing() && process.env.BROWSER_TESTS === 'skip') {
    describe(title, () => {
      it('is skipped on purpose: BROWSER_TESTS=skip and no chromium at /usr/bin/chromium', () => {
        process.stdout.write(`[browser tests] skipped: BROWSER_TESTS=skip and ${CHROMIUM} does not exist (apt-get install -y chromium)\n`);
        expect(missing()).toBe(true);
      });
    });
    return;
  }
  describe(title, body);
}

/** Headless chromium without a desktop profile's background traffic (updates, sync, QUIC probes). */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (missing()) {
    throw new Error(
      `${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium), or set BROWSER_TESTS=skip to skip the browser tests on purpose`,
    );
  }
  return playwright.chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      ...extraArgs,
    ],
  });
}
