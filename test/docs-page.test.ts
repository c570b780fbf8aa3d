import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/lib/version.js';
import { useTestApp } from './helpers/app.js';
import { describeInBrowser, useBrowser } from './helpers/browser.js';

/**
 * The API's documentation page at /docs is served under a Content-Security-Policy that no other
 * site may frame, like the console's, and Swagger UI works under it: in Chromium it shows the
 * operations and "Try it out" calls Wharf, with no violation of the policy.
 */

const FRAME_ANCESTORS_NONE = /(^|; )frame-ancestors 'none'(;|$)/;

describe('the /docs page', () => {
  const ctx = useTestApp('sqlite');

  it.each([
    '/docs',
    '/docs/',
    '/docs/static/index.html',
    '/docs/static/swagger-ui-bundle.js',
    '/docs/static/swagger-initializer.js',
    '/docs/json',
  ])('%s is served with a Content-Security-Policy that forbids framing', async (url) => {
    const response = await ctx().app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(url === '/docs/static/index.html' ? 302 : 200);
    const policy = response.headers['content-security-policy'];
    expect(policy).toMatch(/^default-src 'self';/);
    expect(policy).toMatch(FRAME_ANCESTORS_NONE);
    expect(policy).toContain("object-src 'none'");
    expect(policy).not.toContain('unsafe-');
  });

  it('sets the policy on the documentation only: the API answers without it', async () => {
    const response = await ctx().app.inject({ method: 'GET', url: '/healthz' });
    expect(response.json()).toEqual({ status: 'ok', version: VERSION });
    expect(response.headers['content-security-policy']).toBeUndefined();
  });
});

describeInBrowser('the /docs page in Chromium', () => {
  const ctx = useTestApp('sqlite');
  const browser = useBrowser();
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await ctx().app.listen({ host: '127.0.0.1', port: 0 });
  });

  /** Every violation of the page's policy, as Chromium reports it to the page and on its console. */
  const watchViolations = async (page: Page) => {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
    await page.addInitScript({
      content:
        "document.addEventListener('securitypolicyviolation', (event) => window.reportViolation(`${event.violatedDirective} ${event.blockedURI} ${event.sample}`))",
    });
    return violations;
  };

  it('shows the operations and tries one out, with no violation of its policy', { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    // Swagger UI renders every operation of a large document, on each change too: slow steps on a busy machine.
    page.setDefaultTimeout(30_000);
    const violations = await watchViolations(page);
    const answer = await page.goto(`${baseUrl}/docs`);
    expect(answer?.headers()['content-security-policy']).toMatch(FRAME_ANCESTORS_NONE);
    const healthz = page.locator('#operations-Operations-checkHealth');
    await healthz.locator('button.opblock-summary-control').click();
    await healthz.getByRole('button', { name: 'Try it out' }).click();
    await healthz.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => healthz.locator('.live-responses-table tr.response .response-col_status').first().textContent()).toBe('200');
    await expect
      .poll(() => healthz.locator('.live-responses-table tr.response .response-col_description').first().textContent())
      .toContain(VERSION);
    // The logo Swagger UI draws from a data: URL.
    await expect
      .poll(() =>
        page
          .locator('.topbar img')
          .first()
          .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBeGreaterThan(0);
    expect(violations).toEqual([]);
  });
});
