import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';

/**
 * Debian's Chromium, driven by playwright-core, for the console's tests (docs/console.md). Without
 * Chromium the browser tests are skipped with a message; under CI they are required.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
if (!present) {
  if (process.env.CI) throw new Error(`CI needs Chromium at ${CHROMIUM} (apt-get install -y chromium), and there is none`);
  console.warn(`\n*** Chromium is not at ${CHROMIUM}: the console's browser tests are SKIPPED (apt-get install -y chromium) ***\n`);
}

/** Where the tests leave a screenshot of each page (the README names it). */
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-results', 'console');

/** A describe block that runs only where Chromium is. */
export const describeInBrowser = (title: string, body: () => void) => describe.skipIf(!present)(title, body);

/** One Chromium for the block; each test takes a fresh page (its own sessionStorage) from `newPage`. */
export function useBrowser(): { newPage(): Promise<Page> } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // The machine's network is closed: Chromium's own background connections only fail.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async newPage() {
      const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      // A step that cannot happen fails in its own words, well inside the test's time.
      page.setDefaultTimeout(8_000);
      return page;
    },
  };
}

/** A full-page screenshot of what the page shows now, named after the page. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
