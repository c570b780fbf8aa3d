import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { EXAMPLE_RATE_CARD, seedDemo } from '../src/demo.js';
import type { Role } from '../src/http/auth.js';
import { createDispatcher } from '../src/modules/webhooks/dispatcher.js';
import { createSender } from '../src/modules/webhooks/sender.js';
import * as tenants from '../src/modules/tenants/tenants.service.js';
import { useTestApp } from './helpers/app.js';
import { describeInBrowser, screenshot, useBrowser } from './helpers/browser.js';
import { describeEachDialect } from './helpers/dialects.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

/**
 * The operator console (docs/console.md) in Debian's Chromium against a real listening Wharf seeded by
 * the demo, on both databases: staff find things by the accessible names the design fixes, and
 * every action shows what the API answered. Each page's screenshot lands in test-results/console/.
 */

describeEachDialect('the operator console', (dialect) => {
  describeInBrowser('in Chromium', () => {
    const ctx = useTestApp(dialect, { webhookAllowPrivate: true }, { consoleDir: inject('consoleDir') });
    const browser = useBrowser();
    const workDir = mkdtempSync(join(tmpdir(), 'wharf-console-'));
    let keys: Record<Role, string>;
    let baseUrl: string;
    let receiver: Receiver;

    beforeAll(async () => {
      // Signatures and lease times are read against the real clock.
      ctx().clock.time = Date.now();
      keys = await seedDemo(ctx().database.db, ctx().clock, join(workDir, 'demo-keys.json'));
      baseUrl = await ctx().app.listen({ host: '127.0.0.1', port: 0 });
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      rmSync(workDir, { recursive: true, force: true });
    });

    const signIn = async (role: Role, path = '/console/'): Promise<Page> => {
      const page = await browser.newPage();
      await page.goto(`${baseUrl}${path}`);
      await page.getByLabel('API key').fill(keys[role]);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      return page;
    };
    const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
    const heading = (page: Page) => page.getByRole('heading', { level: 1 });

    it('is served with a strict Content-Security-Policy, and a deep link is the page itself', async () => {
      const page = await fetch(`${baseUrl}/console/receipts/RN-1`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self';/);
      expect(await page.text()).toContain('<div id="root"></div>');
      expect((await fetch(`${baseUrl}/console`, { redirect: 'manual' })).headers.get('location')).toBe('/console/');
    });

    it("refuses a customer key and an unknown key with the API's message, and signs an operator in and out", async () => {
      const page = await browser.newPage();
      await page.goto(`${baseUrl}/console/`);
      await expect.poll(() => page.title()).toBe('Wharf console');
      await page.getByLabel('API key').fill('wk_not-a-key-at-all-not-a-key-at-all-000000000');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('Unknown or revoked API key');
      await page.getByLabel('API key').fill(keys.customer);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toBe("The console is for operator and admin keys; this key's role is customer");
      await screenshot(page, 'sign-in');

      await page.getByLabel('API key').fill(keys.operator);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => heading(page).textContent()).toBe('Dashboard');
      const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
      expect(links).toEqual(['Dashboard', 'Receipts', 'Orders', 'Inventory', 'Items']);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
      expect(await page.evaluate('sessionStorage.length')).toBe(0);
    });

    it('works from the keyboard alone: sign in, move through the navigation, open a receipt', async () => {
      const page = await browser.newPage();
      await page.goto(`${baseUrl}/console/`);
      // The key field has the focus from the start: type the key, then Enter.
      await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("type")')).toBe('password');
      await page.getByLabel('API key').pressSequentially(keys.operator);
      await page.keyboard.press('Enter');
      await expect.poll(() => heading(page).textContent()).toBe('Dashboard');
      // Tab until the Receipts link has the focus, then follow it with Enter.
      const focused = () => page.evaluate('document.activeElement?.textContent');
      for (let presses = 0; presses < 10 && (await focused()) !== 'Receipts'; presses++) await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await expect.poll(() => heading(page).textContent()).toBe('Receipts');
      // On to the first receipt's link (the table's rows link by SVCPOID), then Enter.
      for (let presses = 0; presses < 20 && (await focused()) !== 'RN-1'; presses++) await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await expect.poll(() => heading(page).textContent()).toBe('RN-1');
    });

    it('keeps working in a window 1024 pixels wide: nothing runs off the side, every link still there', async () => {
      const page = await signIn('admin', '/console/orders');
      await page.setViewportSize({ width: 1024, height: 800 });
      await page.getByRole('table', { name: 'Orders in this facility' }).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1024);
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').count()).toBe(8);
      await screenshot(page, 'orders-1024');
    });

    it('shows the dashboard: documents by status today, and the imports refused today', async () => {
      // A receipt without its PONo: refused, with a failed ACK (and its ack.failed event).
      const refused = await ctx().post(
        '/edi/inbound/receipt',
        { CompanyID: 'DEMO', CustomerID: 'ACME', FacilityID: 'LAX1', ASNContent: { Status: 'Imported' } },
        keys.customer,
      );
      expect(refused.statusCode).toBe(400);
      const page = await signIn('admin');
      const receipts = page.getByRole('table', { name: 'Receipts changed today, by status' });
      await expect.poll(() => receipts.getByRole('row', { name: /^Closed/ }).textContent()).toBe('Closed1');
      const failed = page.getByRole('table', { name: 'Imports refused today, by customer' });
      await expect.poll(() => failed.getByRole('row').nth(1).textContent()).toBe('ACME1');
      await screenshot(page, 'dashboard');
    });

    it('finds a receipt by PONo, opens it, receives part of it, and shows its status, its RC and its timeline', async () => {
      const page = await signIn('operator');
      await nav(page, 'Receipts').click();
      await expect.poll(() => heading(page).textContent()).toBe('Receipts');
      const all = page.getByRole('table', { name: 'Receipts in this facility' });
      await expect.poll(() => all.getByRole('row').count()).toBe(7);
      await screenshot(page, 'receipts');
      await page.getByLabel('Search').fill('PO-DEMO-1002');
      await page.getByLabel('Search').press('Enter');
      const table = page.getByRole('table', { name: /matching PO-DEMO-1002/ });
      await expect.poll(() => table.getByRole('row').count()).toBe(2);
      await table.getByRole('link', { name: 'RN-3' }).click();
      await expect.poll(() => heading(page).textContent()).toBe('RN-3');

      await page.getByRole('button', { name: 'Open' }).click();
      const dialog = page.getByRole('dialog', { name: 'Open RN-3' });
      await dialog.getByLabel('Note').fill('Dock 4');
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await expect.poll(() => page.locator('.facts').getByText('Open', { exact: true }).count()).toBe(1);
      // An Open receipt cannot be opened again: the button is gone.
      expect(await page.getByRole('button', { name: 'Open' }).count()).toBe(0);

      await page.getByRole('button', { name: 'Receive' }).click();
      const receive = page.getByRole('dialog', { name: 'Receive RN-3' });
      expect(await receive.getByLabel('ConfirmationNo').inputValue()).toMatch(/^RCV-\d{14}$/);
      await receive.getByLabel('Line 1: MUG-RED-12 (EA)').fill('20');
      await receive.getByRole('button', { name: 'Confirm' }).click();
      await expect.poll(() => page.locator('.facts').getByText('In Progress', { exact: true }).count()).toBe(1);
      const lines = page.getByRole('table', { name: 'Lines' });
      expect(await lines.getByRole('row').nth(1).textContent()).toBe('1MUG-RED-12EA4820');
      const rc = page.getByRole('table', { name: /^Received / });
      await expect.poll(() => rc.getByRole('row').nth(1).textContent()).toBe('1MUG-RED-12EA20');
      const timeline = page.getByRole('list', { name: 'Timeline' }).getByRole('listitem');
      expect(await timeline.allTextContents()).toEqual([
        expect.stringMatching(/ import \(Imported\)$/),
        expect.stringMatching(/ open \(Imported → Open\) by key 2Dock 4$/),
        expect.stringMatching(/ confirm \(Open → In Progress\) by key 2$/),
      ]);
      await screenshot(page, 'receipt');
    });

    it('cancels an Imported order with a note', async () => {
      const page = await signIn('operator', '/console/orders');
      await page.getByLabel('Status').selectOption('Imported');
      const table = page.getByRole('table', { name: /Orders in this facility, Imported/ });
      await table.getByRole('link', { name: 'DN-2' }).click();
      await expect.poll(() => heading(page).textContent()).toBe('DN-2');
      await page.getByRole('button', { name: 'Cancel order' }).click();
      const dialog = page.getByRole('dialog', { name: 'Cancel order DN-2' });
      await dialog.getByLabel('Note').fill('Customer called: duplicate');
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await expect.poll(() => page.locator('.facts').getByText('Cancelled', { exact: true }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Ship' }).count()).toBe(0);
      expect(await page.getByRole('list', { name: 'Timeline' }).getByRole('listitem').last().textContent()).toMatch(
        / cancel \(Imported → Cancelled\) by key 2Customer called: duplicate$/,
      );
      await screenshot(page, 'order');
      await nav(page, 'Orders').click();
      await screenshot(page, 'orders');
    });

    it('adjusts stock and shows the new balance and its ledger line', async () => {
      const page = await signIn('operator', '/console/inventory');
      await expect.poll(() => heading(page).textContent()).toBe('Inventory');
      const balances = page.getByRole('table', { name: /^Balances of ACME/ });
      const tees = balances.getByRole('row').filter({ hasText: 'TEE-BLK-M' });
      await expect.poll(() => tees.textContent()).toBe('TEE-BLK-MAvailableEA50050');
      await page.getByLabel('Item').fill('TEE-BLK-M');
      await page.getByLabel('Quantity change').fill('5');
      await page.getByLabel('Reason').fill('CYCLE-COUNT');
      await page.getByRole('button', { name: 'Adjust' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'applied' }).count()).toBe(1);
      await expect.poll(() => tees.textContent()).toBe('TEE-BLK-MAvailableEA55055');
      const ledger = page.getByRole('table', { name: 'Postings of TEE-BLK-M, oldest first' });
      await expect.poll(() => ledger.getByRole('row').count()).toBe(3);
      expect(await ledger.getByRole('row').nth(2).textContent()).toMatch(/Available555adjustment ADJ-\d{14}$/);
      await screenshot(page, 'inventory');
    });

    it('searches the item master and shows an item', async () => {
      const page = await signIn('operator', '/console/items');
      await page.getByLabel('Search').fill('LAMP-DESK');
      await page.getByLabel('Search').press('Enter');
      await page.getByRole('button', { name: 'LAMP-DESK' }).click();
      await expect.poll(() => page.getByRole('heading', { name: 'LAMP-DESK' }).count()).toBe(1);
      expect(await page.locator('.facts').textContent()).toContain('Desk lamp with LED bulb');
      await screenshot(page, 'items');
    });

    it('creates a key, shows it once, and revokes it', async () => {
      const page = await signIn('admin', '/console/api-keys');
      await expect.poll(() => heading(page).textContent()).toBe('API keys');
      await page.getByLabel('Role').selectOption('operator');
      await page.getByLabel('Label').fill('night shift');
      await page.getByRole('button', { name: 'Create key' }).click();
      const shown = page.getByLabel('New API key');
      await shown.waitFor();
      const created = await shown.textContent();
      const view = await tenants.authenticateApiKey(ctx().database.db, ctx().clock, created!);
      expect(view).toMatchObject({ role: 'operator', companyId: 'DEMO' });
      await screenshot(page, 'api-keys');
      // Each row's buttons are named by their verb alone; the row says whose they are.
      await page.getByRole('row').filter({ hasText: 'night shift' }).getByRole('button', { name: 'Revoke', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
      const row = page.getByRole('row').filter({ hasText: 'night shift' });
      await expect.poll(() => row.getByText(/^Revoked/).count()).toBe(1);
      expect(await tenants.authenticateApiKey(ctx().database.db, ctx().clock, created!)).toBeUndefined();
    });

    it('rotates a key: the new key keeps its expiry, and the old one names the key that replaced it', async () => {
      const expiresAt = Date.parse('2030-06-30T12:00:00.000Z');
      const { view } = await tenants.createApiKey(ctx().database.db, ctx().clock, {
        role: 'operator',
        companyId: 'DEMO',
        customerIds: [],
        facilityIds: ['LAX1'],
        userIds: [],
        label: 'dock scanners',
        rateLimit: 120,
        expiresAt,
      });
      const page = await signIn('admin', '/console/api-keys');
      const rows = page.getByRole('row').filter({ hasText: 'dock scanners' });
      await expect.poll(() => rows.count()).toBe(1);
      expect(await rows.getByText('Active until 2030-06-30 12:00').count()).toBe(1);
      await rows.getByRole('button', { name: 'Rotate', exact: true }).click();
      const shown = page.getByLabel('New API key');
      await shown.waitFor();
      const created = (await tenants.authenticateApiKey(ctx().database.db, ctx().clock, (await shown.textContent())!))!;
      expect(created).toMatchObject({ role: 'operator', facilityIds: ['LAX1'], rateLimit: 120, expiresAt });
      expect(await page.getByRole('heading', { level: 2, name: /^Key \d+ replaces/ }).textContent()).toMatch(
        new RegExp(
          `^Key ${created.keyId} replaces KeyID ${view.id} \\(the old one works until [0-9-]+ [0-9:]+; it expires 2030-06-30 12:00, as the old one was to\\)$`,
        ),
      );
      await expect.poll(() => rows.count()).toBe(2);
      const replaced = rows.filter({ hasText: `Replaced by key ${created.keyId}, works until` });
      await expect.poll(() => replaced.count()).toBe(1);
      // Being replaced already, it is not rotated again; its replacement, active until the same day, is.
      expect(await replaced.getByRole('button', { name: 'Rotate', exact: true }).count()).toBe(0);
      const replacement = rows.filter({ hasText: 'Active until 2030-06-30 12:00' });
      expect(await replacement.getByRole('button', { name: 'Rotate', exact: true }).count()).toBe(1);
      await screenshot(page, 'api-keys-rotated');
    });

    it('loads a rate card, shows the engine’s refusal of a bad one, and quotes with the breakdown', async () => {
      const page = await signIn('admin', '/console/rate-cards');
      await expect.poll(() => heading(page).textContent()).toBe('Rate cards');
      const card = JSON.parse(readFileSync(EXAMPLE_RATE_CARD, 'utf8')) as Record<string, unknown>;
      await page.getByLabel('Rate card file').setInputFiles({
        name: 'bad.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify({ ...card, timeZone: 'Mars/Base' })),
      });
      await page.getByLabel('For UserID (empty: company default)').fill('1002');
      await page.getByRole('button', { name: 'Upload' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toBe('Card: timeZone must be an IANA time zone such as America/New_York, not Mars/Base');
      await page
        .getByLabel('Rate card file')
        .setInputFiles({ name: 'card.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(card)) });
      await page.getByRole('button', { name: 'Upload' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toMatch(/^Loaded .* as version 1\.$/);
      await expect.poll(() => page.getByRole('row').filter({ hasText: 'UserID 1002' }).count()).toBe(1);

      await page.getByLabel('UserID', { exact: true }).fill('1002');
      await page.getByRole('button', { name: 'Get quote' }).click();
      const breakdown = page.getByRole('region', { name: 'Breakdown' });
      await expect.poll(() => breakdown.getByRole('table').count()).toBeGreaterThan(0);
      expect(await breakdown.getByRole('table').first().getByRole('row').nth(1).textContent()).toMatch(/^Base/);
      await screenshot(page, 'rate-cards');
    });

    it('adds a webhook endpoint and shows its delivery with the attempt', async () => {
      const page = await signIn('admin', '/console/webhooks');
      await expect.poll(() => heading(page).textContent()).toBe('Webhooks');
      await page.getByLabel('URL').fill(receiver.url('/console'));
      await page.getByLabel('Event types (comma-separated; empty: all)').fill('item.created');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect.poll(() => page.getByLabel('Signing secret').textContent()).toMatch(/^whsec_/);

      const post = (path: string, body: unknown) => ctx().post(path, body, keys.customer);
      expect(
        (await post('/edi/item-master/import', { CompanyID: 'DEMO', CustomerID: 'ACME', Items: [{ itemID: 'CONSOLE-1' }] })).statusCode,
      ).toBe(200);
      const dispatcher = createDispatcher({
        db: ctx().database.db,
        clock: ctx().clock,
        sender: createSender({ allowPrivate: true, now: () => ctx().clock.now() }),
        concurrency: 1,
        leaseMs: 60_000,
        pollMs: 50,
        random: () => 0.5,
        onError: (error) => {
          throw error;
        },
      });
      ctx().clock.time = Date.now();
      await dispatcher.runOnce();
      expect(receiver.received.map((got) => got.path)).toEqual(['/console']);

      await page.reload();
      await page
        .getByRole('button', { name: /^Deliveries of ep_/ })
        .last()
        .click();
      const deliveries = page.getByRole('table', { name: /^Deliveries of ep_/ });
      await expect.poll(() => deliveries.getByRole('row').nth(1).textContent()).toMatch(/item\.createdSucceeded.* · 200 · \d+ ms/);
      // Replay queues it again, due at once.
      await deliveries.getByRole('row').nth(1).getByRole('button', { name: 'Replay', exact: true }).click();
      await expect.poll(() => deliveries.getByRole('row').nth(1).getByText('Pending', { exact: true }).count()).toBe(1);
      await screenshot(page, 'webhooks');
    });

    it('sends a user whose key is revoked back to sign in, with the API’s message', async () => {
      const page = await signIn('operator', '/console/receipts');
      // The page has what it asked for before the key goes.
      await page.getByRole('table', { name: 'Receipts in this facility' }).waitFor();
      const operator = (await tenants.listApiKeys(ctx().database.db, 'DEMO')).find((key) => key.label === 'demo operator')!;
      await tenants.revokeApiKey(ctx().database.db, ctx().clock, operator.id);
      // The key cache trusts a key for a second.
      ctx().clock.advance(2_000);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await page.getByLabel('Search').fill('PO-DEMO-1000');
      await page.getByLabel('Search').press('Enter');
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('Unknown or revoked API key');
      expect(await page.getByLabel('API key').count()).toBe(1);
    });
  });
});
