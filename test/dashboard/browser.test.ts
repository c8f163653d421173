/**
 * The dashboard in Debian's Chromium against a real server in sandbox mode (simulators in-process,
 * worker running): sign-in page, brands, connecting a sandbox X channel through the simulated consent,
 * composing and publishing, the calendar, rescheduling by drag, cancelling. Screenshots of each page go
 * to test-output/dashboard/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { BrandsService } from '../../src/modules/brands/brands.service.js';
import { addMember, PASSWORD } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { freePort } from '../support/service-process.js';
import { createToolUser } from '../tools/tool-http.support.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureWebBuild, SCREENSHOTS } from './support.js';

if (!CHROMIUM) console.error('NOTICE: chromium is not installed (/usr/bin/chromium); dashboard browser tests skipped.');

const iso = (d: Date) => d.toISOString().slice(0, 10);

describe('dashboard in a browser', { skip: CHROMIUM ? false : 'chromium not installed' }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;
  const foreignRequests: string[] = [];
  /** what the dashboard's Content-Security-Policy refused during the whole run (must stay empty) */
  const cspViolations: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const api = async (p: string) => (await (await fetch(`${base}${p}`, { headers: org.auth })).json()) as Record<string, unknown>;

  before(async () => {
    ensureWebBuild();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ env: { SERVICE_PROVIDER_MODE: 'sandbox', SERVICE_PUBLIC_BASE_URL: base } });
    await ctx.app.listen({ host: '127.0.0.1', port });
    await ctx.startWorker();
    org = await ctx.createOrganization({ name: 'Dashboard Org' });
    const { brandId } = await ctx.createBrand(org.organizationId, 'Acme Coffee', { timezone: 'UTC' });
    const brands = new BrandsService(ctx.database.db);
    for (const name of ['House Blend', 'Decaf'])
      await brands.createProduct(
        org.organizationId,
        brandId,
        { name, productUrl: `https://shop.example/${name.toLowerCase().replace(' ', '-')}` },
        new Date(),
      );
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: CHROMIUM_ARGS });
    context = await browser.newContext({ timezoneId: 'UTC', viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('request', (r) => {
      if (!r.url().startsWith(base)) foreignRequests.push(r.url());
    });
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to (load|execute|apply|frame)/i.test(m.text())) cspViolations.push(m.text());
    });
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it('/ lands on the sign-in page of /app/ and shows a refused sign-in', async () => {
    await page.goto(`${base}/`);
    assert.equal(new URL(page.url()).pathname, '/app/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot('sign-in');
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    assert.ok((await page.getByRole('alert').textContent())?.length);
  });

  it('signs in with a password through the browser session, shows who and the role, signs out', async () => {
    const member = await addMember(ctx, org.organizationId, 'admin');
    await page.getByLabel('Email').fill(member.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter'); // keyboard submit
    const who = page.getByTestId('who');
    await who.filter({ hasText: member.email }).waitFor();
    await who.click(); // the account menu
    assert.match((await page.locator('.account-menu').textContent()) ?? '', /Dashboard Org · role admin/);
    // the exchange code never appears in a URL
    assert.doesNotMatch(page.url(), /code|nonce/i);
    const cookies = await context.cookies();
    assert.ok(cookies.some((c) => c.name === 'service_dashboard_session' && c.httpOnly));
    await page.getByRole('heading', { name: 'Brands' }).waitFor();
    await shot('signed-in');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('continues with an API key and lists the brands', async () => {
    await page.getByText('Use an API key instead').click();
    await page.getByRole('textbox', { name: 'API key' }).fill(org.apiKey);
    await page.getByRole('button', { name: 'Continue with API key' }).click();
    await page.getByRole('heading', { name: 'Brands' }).waitFor();
    await page.getByText('Acme Coffee').waitFor();
    await shot('brands');
  });

  it('connects a sandbox X channel through the simulated consent', async () => {
    await page.getByRole('link', { name: 'Channels' }).click();
    await page.getByRole('heading', { name: 'Channels' }).waitFor();
    await page.getByLabel('Platform', { exact: true }).selectOption('x');
    await page.getByLabel('Brand', { exact: true }).selectOption({ label: 'Acme Coffee' });
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.waitForURL(/\/app\/channels\?channelConnect=connected/);
    await page.getByRole('status').filter({ hasText: 'Connected X.' }).waitFor();
    await page.locator('.badge.ok', { hasText: 'Connected' }).waitFor();
    await shot('channels');
  });

  it('composes with live validation, publishes now, and sees the post published and on the calendar', async () => {
    await page.getByRole('link', { name: 'Compose' }).click();
    await page.getByRole('checkbox').first().check();
    await page.getByLabel('Text', { exact: true }).fill('Fresh roast today ☕');
    await page.getByText('Ready to publish.').waitFor();
    assert.match((await page.getByLabel('validation').textContent()) ?? '', /X: \d+ \/ 280 characters/);
    await shot('composer');
    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.waitForURL(/\/app\/posts\/job_/);
    await page
      .getByTestId('job-status')
      .filter({ hasText: /^published$/ })
      .waitFor({ timeout: 20_000 });
    await page.getByRole('link', { name: 'permalink' }).waitFor();
    await shot('post');
    await page.getByRole('button', { name: 'Back to calendar' }).click();
    await page.locator('.post.ok', { hasText: 'Fresh roast today' }).waitFor();
    await shot('calendar-week');
    await page.getByRole('button', { name: 'Month' }).click();
    await page.locator('.post.ok', { hasText: 'Fresh roast today' }).waitFor();
    await shot('calendar-month');
  });

  it('schedules a post for next week, reschedules it by drag, then cancels it', async () => {
    const now = new Date();
    const monday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 7 - ((now.getUTCDay() + 6) % 7), 12, 0));
    const wednesday = new Date(monday.getTime() + 2 * 86400_000);
    await page.getByRole('link', { name: 'Compose' }).click();
    await page.getByRole('checkbox').first().check();
    await page.getByLabel('Text', { exact: true }).fill('Next week: new blend');
    await page.getByLabel('Schedule', { exact: true }).check();
    await page.getByLabel('Schedule at').fill(`${iso(monday)}T12:00`);
    await page.getByText('Ready to publish.').waitFor();
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.waitForURL(/\/app\/posts\/job_/);
    const publishJobId = page.url().split('/').pop()!;
    await page.getByTestId('job-status').filter({ hasText: 'scheduled' }).waitFor();

    await page.getByRole('link', { name: 'Calendar' }).click();
    await page.getByRole('button', { name: 'Week' }).click();
    await page.getByRole('button', { name: 'next' }).click();
    const chip = page.locator(`[data-day="${iso(monday)}"] [data-job="${publishJobId}"]`);
    await chip.waitFor();
    await chip.dragTo(page.locator(`[data-day="${iso(wednesday)}"]`));
    await page.getByRole('dialog').getByRole('button', { name: 'Move post' }).click(); // same time of day
    await page.locator(`[data-day="${iso(wednesday)}"] [data-job="${publishJobId}"]`).waitFor();
    const moved = await api(`/v1/publish/jobs/${publishJobId}`);
    assert.equal(moved.scheduledAt, wednesday.toISOString());
    await shot('calendar-rescheduled');

    await page.locator(`[data-job="${publishJobId}"]`).click();
    await page.getByRole('button', { name: 'Cancel post' }).click();
    await page.getByTestId('job-status').filter({ hasText: 'cancelled' }).waitFor();
    assert.equal((await api(`/v1/publish/jobs/${publishJobId}`)).status, 'cancelled');
  });

  it('plans a batch from pasted CSV rows, previews it per channel, commits it and lists it', async () => {
    await page.getByRole('link', { name: 'Batches' }).click();
    await page.getByRole('heading', { name: 'Batches', level: 1 }).waitFor();
    await page.getByText('Paste CSV rows').click();
    await page
      .getByLabel('CSV rows')
      .fill('product,text,channels\nHouse Blend,"Morning roast, batch one",x\nDecaf,Evening decaf batch two,x\nNo Such Product,text,x');
    await page.getByRole('button', { name: 'Add rows from CSV' }).click();
    await page.getByRole('status').filter({ hasText: 'Added 2 rows. Skipped: line 3: unknown product' }).waitFor();
    assert.equal(await page.getByRole('list', { name: 'batch rows' }).getByRole('listitem').count(), 2);
    // edit a row in place
    await page.getByLabel('Text (row 2)').fill('Evening decaf, batch two');
    assert.equal(await page.getByLabel('Posting times (HH:MM, comma-separated)').inputValue(), '09:00, 17:30');
    await page.getByLabel('Minimum gap on a channel (minutes)').fill('60');
    await page.getByRole('button', { name: 'Preview schedule' }).click();
    await page.getByTestId('preview-summary').filter({ hasText: '2 scheduled, 0 unscheduled, 2 posts' }).waitFor();
    const lane = page.getByRole('region', { name: /^timeline .*\(X\)$/ });
    assert.equal(await lane.locator('.chip').count(), 2);
    await shot('batches-preview');
    await page.getByRole('button', { name: 'Commit batch' }).click();
    await page.getByRole('status').filter({ hasText: 'Batch committed: 2 items, status scheduled.' }).waitFor();
    const row = page.getByRole('table', { name: 'batches' }).locator('tbody tr').first();
    await row.filter({ hasText: 'scheduled' }).waitFor();
    const list = (await api('/v1/publish/batches')) as { data: Array<{ status: string; itemCount: number; source?: string }> };
    assert.equal(list.data.length, 1);
    assert.equal(list.data[0]!.itemCount, 2);
    assert.equal(list.data[0]!.source, 'dashboard');
    await shot('batches');
  });

  it('adds a webhook endpoint (secret shown once), sends a test event, redelivers, and builds UTM links', async () => {
    await page.getByRole('link', { name: 'Developers' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/dashboard');
    await page.getByLabel('Description').fill('Shop sync');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    assert.match((await page.getByTestId('webhook-secret').textContent()) ?? '', /^whsec_/);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.getByTestId('webhook-secret').count(), 0);
    await page.getByRole('button', { name: 'Delivery log' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const deliveries = page.getByRole('table', { name: /^deliveries of/ }).locator('tbody tr[data-delivery]');
    await deliveries.first().filter({ hasText: 'webhook_endpoint.test' }).waitFor();
    await deliveries.first().getByRole('button', { name: 'Redeliver' }).click();
    await page.getByRole('status').filter({ hasText: 'Delivery queued again.' }).waitFor();
    await page.waitForFunction("document.querySelectorAll('tr[data-delivery]').length === 2");
    await shot('developers-webhooks');

    const tool = await createToolUser(ctx, 'pro');
    await page.getByLabel('Tool API key').fill(tool.apiKey);
    await page.getByLabel('URLs (one a line)').fill('https://shop.example/p/1?ref=home');
    await page.getByLabel('utm_campaign').fill('spring sale');
    await page.getByRole('button', { name: 'Build links' }).click();
    const link = await page.getByTestId('utm-link').first().textContent();
    assert.equal(link, 'https://shop.example/p/1?ref=home&utm_source=newsletter&utm_medium=email&utm_campaign=spring%20sale');
    await shot('developers-tools');
  });

  it('creates an API key (secret shown once), lists it, and revokes it after confirmation', async () => {
    // Managing credentials needs a signed-in user (not an API key): a separate browser context signs in as an admin.
    const adminContext = await browser.newContext({ timezoneId: 'UTC', viewport: { width: 1280, height: 860 } });
    const page = await adminContext.newPage();
    page.setDefaultTimeout(10_000);
    const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    const admin = await addMember(ctx, org.organizationId, 'admin');
    await page.goto(`${base}/app/`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByTestId('who').filter({ hasText: admin.email }).waitFor();
    await page.getByRole('link', { name: 'Developers' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Key name').fill('Shop integration');
    await page.getByRole('form', { name: 'new API key' }).getByRole('checkbox', { name: 'comments:write' }).uncheck();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const secret = (await page.getByTestId('api-key-secret').textContent()) ?? '';
    assert.ok(secret.length > 20, 'the key is shown');
    const row = page.getByRole('table', { name: 'API keys' }).locator('tbody tr').filter({ hasText: 'Shop integration' });
    await row.getByText('active').waitFor();
    await shot('developers-api-key-created');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.getByTestId('api-key-secret').count(), 0);
    // the key shown works as a bearer
    const withKey = () => fetch(`${base}/v1/brands`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status);
    assert.equal(await withKey(), 200);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke Shop integration' }).click();
    await row.getByText('revoked').waitFor();
    await page.getByRole('status').filter({ hasText: 'API key Shop integration revoked.' }).waitFor();
    assert.equal(await withKey(), 401);
    await shot('developers-api-key-revoked');
    await adminContext.close();
  });

  it('fits a 390 px phone on every page (no horizontal scroll)', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [route, heading] of [
      ['brands', 'Brands'],
      ['channels', 'Channels'],
      ['compose', 'Compose'],
      ['calendar', 'Calendar'],
      ['batches', 'Batches'],
      ['inbox', 'Inbox'],
      ['analytics', 'Analytics'],
      ['developers', 'Developers'],
    ] as const) {
      await page.goto(`${base}/app/${route}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      const [scrollWidth, innerWidth] = await page.evaluate<[number, number]>('[document.documentElement.scrollWidth, window.innerWidth]');
      assert.ok(scrollWidth <= innerWidth, `${route}: page is ${scrollWidth}px wide at ${innerWidth}px`);
      await shot(`phone-${route}`);
    }
    assert.deepEqual(foreignRequests, []);
  });

  it('ran every page above under the Content-Security-Policy without a single refusal', async () => {
    const shell = await fetch(`${base}/app/`);
    assert.match(shell.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.deepEqual(cspViolations, []);
  });
});
