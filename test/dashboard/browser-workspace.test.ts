/**
 * The dashboard in Debian's Chromium as a new admin uses it, signed in with a password only (no API key):
 * sign-in at http://127.0.0.1:PORT/app/ while the service's own origin is http://localhost:PORT (the
 * embedded default approves both); a brand and a product created and edited, time zone from the list;
 * a sandbox X channel and a Facebook Page (the Page chosen) connected, one disconnected in a dialog; a
 * post composed with the live preview and scheduled, dragged to another day in the brand's time zone,
 * another published and watched until published; a tool API key created (shown once), used and revoked;
 * a member not shown the setup buttons. On every page: axe-core finds no serious or critical violation,
 * screenshots at 1280 and 390 px (test-output/dashboard/pages-*), no horizontal scroll on a phone.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import { Resvg } from '@resvg/resvg-js';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { identityRepository } from '../../src/modules/identity/identity.repository.js';
import { addMember, PASSWORD } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { freePort } from '../support/service-process.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureWebBuild, SCREENSHOTS } from './support.js';

const ZONE = 'Europe/Berlin';
const PAGES = [
  ['brands', 'Brands'],
  ['channels', 'Channels'],
  ['compose', 'Compose'],
  ['calendar', 'Calendar'],
  ['batches', 'Batches'],
  ['inbox', 'Inbox'],
  ['analytics', 'Analytics'],
  ['developers', 'Developers'],
  ['settings', 'Settings'],
] as const;

/** A plain-coloured 400x300 PNG. */
function png(r: number, g: number, b: number): Buffer {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="rgb(${r},${g},${b})"/></svg>`;
  return Buffer.from(new Resvg(svg).render().asPng());
}

/** YYYY-MM-DD of an instant in a zone. */
const dayIn = (at: Date, zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(at);

describe('dashboard in a browser: a new admin sets up and publishes', { skip: CHROMIUM ? false : 'chromium not installed' }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;
  let admin: { userId: string; email: string };
  let postId = '';
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];
  const shot = (name: string, p: Page = page) => p.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const api = async (p: string) => (await (await fetch(`${base}${p}`, { headers: org.auth })).json()) as Record<string, any>;
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).first().waitFor();
  const go = async (label: string) => {
    await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: label }).click();
    await page.getByRole('heading', { name: label, level: 1 }).waitFor();
  };
  async function axe(p: Page, name: string) {
    const result = await new AxeBuilder({ page: p }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
      `${name}: serious or critical accessibility violations`,
    );
  }

  before(async () => {
    ensureWebBuild();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const port = await freePort();
    // the service's own origin is the localhost spelling; the browser uses 127.0.0.1, as the start banner prints
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ env: { SERVICE_PROVIDER_MODE: 'sandbox', SERVICE_PUBLIC_BASE_URL: `http://localhost:${port}` } });
    await ctx.app.listen({ host: '127.0.0.1', port });
    await ctx.startWorker();
    org = await ctx.createOrganization({ name: 'Tea House' });
    admin = await addMember(ctx, org.organizationId, 'admin');
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: CHROMIUM_ARGS });
    context = await browser.newContext({ timezoneId: ZONE, viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', (r) => {
      // this server under either loopback spelling (the sandbox consent runs on the service's own origin)
      const own = [base, `http://localhost:${port}`, 'data:', 'blob:'];
      if (!own.some((prefix) => r.url().startsWith(prefix))) foreignRequests.push(r.url());
    });
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it('signs in with a password at http://127.0.0.1 (both loopback spellings are approved)', async () => {
    await page.goto(`${base}/app/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await page.title(), 'Social Publisher');
    assert.equal(await page.locator('link[rel="icon"]').getAttribute('href'), '/app/favicon.svg');
    await axe(page, 'sign-in');
    await shot('pages-1280-sign-in');
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const refusal = page.getByRole('alert');
    await refusal.filter({ hasText: 'The email or password is not right' }).waitFor();
    assert.match((await refusal.textContent()) ?? '', /Code: sign_in_failed/, 'the code is in the details line');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.getByTestId('who').filter({ hasText: admin.email }).waitFor();
    await page.getByRole('heading', { name: 'Brands', level: 1 }).waitFor();
  });

  it('creates a brand with a time zone from the list and a product, then edits both', async () => {
    await page.getByText('No brands yet.').waitFor();
    const form = page.getByRole('form', { name: 'new brand' });
    await form.getByLabel('New brand').fill('Acme Tea');
    await form.getByLabel('Time zone').selectOption(ZONE);
    await form.getByRole('button', { name: 'Create brand' }).click();
    await status('Created Acme Tea.');
    await page.getByRole('form', { name: 'new product' }).getByLabel('New product').fill('Green tea');
    await page.getByRole('form', { name: 'new product' }).getByLabel('Product link').fill('https://shop.example/green');
    await page.getByRole('button', { name: 'Add product' }).click();
    await status('Added Green tea.');
    await page.getByRole('button', { name: 'Edit Green tea' }).click();
    await page.getByRole('form', { name: 'edit product Green tea' }).getByLabel('Product name').fill('Sencha');
    await page.getByRole('button', { name: 'Save product' }).click();
    await status('Saved Sencha.');
    await page.getByRole('button', { name: 'Edit brand' }).click();
    await page.getByLabel('Brand name').fill('Acme Teas');
    await page.getByRole('button', { name: 'Save brand' }).click();
    await status('Saved Acme Teas.');
    const brands = (await api('/v1/brands?includeProducts=true')).data;
    assert.equal(brands[0].name, 'Acme Teas');
    assert.equal(brands[0].timezone, ZONE);
    assert.deepEqual(
      brands[0].products.map((p: { name: string }) => p.name),
      ['Sencha'],
    );
  });

  it('connects X and a Facebook Page (choosing the Page) with the session, and disconnects one in a dialog', async () => {
    await go('Channels');
    await page.getByText('No channels yet.').waitFor();
    const connect = async (platform: string) => {
      await page.getByLabel('Platform', { exact: true }).selectOption({ label: platform });
      await page.getByLabel('Brand', { exact: true }).selectOption({ label: 'Acme Teas' });
      await page.getByRole('button', { name: 'Connect', exact: true }).click();
    };
    await connect('X');
    await page.waitForURL(/\/app\/channels\?channelConnect=connected/);
    await status('Connected X.');
    await connect('Facebook Page');
    await page.waitForURL(/channelConnect=in_between_steps/);
    const choice = page.getByRole('group', { name: /^choose the account for/ });
    await choice.getByRole('button').first().click();
    await status(/^Connected .*\(Facebook Page\)\.$/);
    await page.locator('tbody tr').filter({ hasText: 'Facebook Page' }).getByText('Connected', { exact: true }).waitFor();
    await shot('pages-1280-channels-connected');

    const fbRow = page.locator('tbody tr').filter({ hasText: 'Facebook Page' });
    await fbRow.getByRole('button', { name: 'Disconnect' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await axe(page, 'disconnect dialog');
    await shot('pages-1280-disconnect-dialog');
    await dialog.getByRole('button', { name: 'Disconnect' }).click();
    await status(/^Disconnected .*: \d+ scheduled posts cancelled/);
    const live = (await api('/v1/channel-accounts')).data.filter((c: { state: string }) => c.state !== 'deleted');
    assert.deepEqual(
      live.map((c: { platform: string }) => c.platform),
      ['x'],
    );
  });

  it('composes with the live preview, schedules, drags the post to another day, and watches another publish', async () => {
    await go('Compose');
    await page.getByRole('checkbox', { name: /\(X\)$/ }).check();
    const long = `${'Steeped slowly, served warm. '.repeat(11)}End.`;
    await page.getByLabel('Text', { exact: true }).fill(long);
    const card = page.getByRole('article', { name: /^preview on X/ });
    await card.getByText(/over the limit/).waitFor();
    assert.ok(((await card.getByTestId('folded-text').textContent()) ?? '').endsWith('End.'), 'the text past 280 characters is folded');
    assert.ok(
      await page
        .getByRole('button', { name: 'Schedule' })
        .or(page.getByRole('button', { name: 'Publish now' }))
        .isDisabled(),
    );
    await page.getByLabel('Text', { exact: true }).fill('First flush of the season 🍵');
    await page.getByLabel('First comment').fill('Shop: https://shop.example/green');
    await card.getByText('First flush of the season').waitFor();
    await card.getByText('Shop: https://shop.example/green').waitFor();
    await page.getByText('Text per channel').click();
    await page.getByLabel('Text for', { exact: false }).fill('First flush, on X 🍵');
    await card.getByText('First flush, on X').waitFor();
    // two images: alt text on the second, moved first; the preview follows the order
    await page.getByLabel('Media (drop files here or choose)').setInputFiles([
      { name: 'cup.png', mimeType: 'image/png', buffer: png(200, 60, 40) },
      { name: 'leaves.png', mimeType: 'image/png', buffer: png(40, 150, 60) },
    ]);
    await page.getByLabel('Alt text (leaves.png)').fill('Fresh green tea leaves');
    await page.getByRole('button', { name: 'Move leaves.png earlier' }).click();
    const alts = () => card.locator('.pcard-media img').evaluateAll((els) => els.map((e) => e.getAttribute('alt')));
    assert.deepEqual(await alts(), ['Fresh green tea leaves', 'image 2 (no alt text yet)']);
    await page.getByText('Ready to publish.').waitFor();
    await shot('pages-1280-compose-preview');

    // next Monday 10:00 in the brand's zone (the browser runs in the same zone)
    const now = new Date();
    const monday = new Date(now.getTime() + ((8 - now.getUTCDay()) % 7 || 7) * 86400_000);
    const mondayDay = dayIn(monday, ZONE);
    await page.getByLabel('Schedule', { exact: true }).check();
    await page.getByLabel('Schedule at').fill(`${mondayDay}T10:00`);
    await page.getByText('Ready to publish.').waitFor();
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.waitForURL(/\/app\/posts\/job_/);
    postId = page.url().split('/').pop()!;
    await page.getByTestId('job-status').filter({ hasText: 'scheduled' }).waitFor();
    const scheduled = await api(`/v1/publish/jobs/${postId}`);
    assert.equal(scheduled.targets[0].text, 'First flush, on X 🍵', 'the per-channel text');
    assert.equal(scheduled.media.length, 2);
    assert.equal(scheduled.media[0].altText, 'Fresh green tea leaves', 'the order and alt text shown are the ones stored');

    await go('Calendar');
    await page.getByTestId('calendar-zone').filter({ hasText: 'Europe/Berlin' }).waitFor();
    const wednesdayDay = dayIn(new Date(monday.getTime() + 2 * 86400_000), ZONE);
    await page.getByRole('button', { name: 'next' }).click();
    const chip = page.locator(`[data-day="${mondayDay}"] [data-job="${postId}"]`);
    await chip.waitFor();
    assert.match((await chip.textContent()) ?? '', /10:00/);
    await chip.dragTo(page.locator(`[data-day="${wednesdayDay}"]`));
    // the dialog offers the post's time of day there; a later time is chosen
    const move = page.getByRole('dialog');
    assert.equal(await move.getByLabel(/^Time/).inputValue(), '10:00');
    await move.getByLabel(/^Time/).fill('11:30');
    await move.getByRole('button', { name: 'Move post' }).click();
    await page.locator(`[data-day="${wednesdayDay}"] [data-job="${postId}"]`).waitFor();
    await status(/^Moved to /);
    const moved = new Date((await api(`/v1/publish/jobs/${postId}`)).scheduledAt);
    assert.equal(dayIn(moved, ZONE), wednesdayDay);
    assert.equal(moved.toLocaleTimeString('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit' }), '11:30', "in the brand's zone");
    await shot('pages-1280-calendar-week');
    await page.getByRole('button', { name: 'Month' }).click();
    assert.ok((await page.locator('.day.outside').count()) > 0, 'neighbouring months are dimmed');

    await go('Compose');
    await page.getByRole('checkbox', { name: /\(X\)$/ }).check();
    await page.getByLabel('Text', { exact: true }).fill('Tasting today at noon');
    await page.getByText('Ready to publish.').waitFor();
    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.waitForURL(/\/app\/posts\/job_/);
    await page
      .getByTestId('job-status')
      .filter({ hasText: /^published$/ })
      .waitFor({ timeout: 30_000 });
    await axe(page, 'post');
    await shot('pages-1280-post');
  });

  it('creates a tool API key in Settings (shown once, needs Pro or Max), uses it, and revokes it', async () => {
    await go('Settings');
    await page.getByText(/no tool API access/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create tool API key' }).count(), 0, 'Basic: nothing to create');
    await identityRepository.setUserTier(ctx.database.db, admin.userId, 'pro', new Date());
    await page.reload();
    await page.getByText(/1,000 UTM links/).waitFor();
    await page.getByLabel('Key name').fill('Newsletter sheet');
    await page.getByRole('button', { name: 'Create tool API key' }).click();
    const key = (await page.getByTestId('new-tool-key').textContent()) ?? '';
    assert.ok(key.length > 20);
    await shot('pages-1280-settings-key-created');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.getByTestId('new-tool-key').count(), 0);
    const build = () =>
      fetch(`${base}/api/v1/tools/utm-builder/build`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ urls: ['https://shop.example/green'], source: 'newsletter', medium: 'email', campaign: 'tea' }),
      }).then((r) => r.status);
    assert.equal(await build(), 200);
    const row = page.locator('tbody tr').filter({ hasText: 'Newsletter sheet' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke Newsletter sheet' }).click();
    await status('Tool API key Newsletter sheet revoked');
    await row.getByText('Revoked').waitFor();
    assert.equal(await build(), 401);
  });

  it('shows a member no setup buttons', async () => {
    const member = await addMember(ctx, org.organizationId, 'member');
    const c = await browser.newContext({ timezoneId: ZONE, viewport: { width: 1280, height: 860 } });
    const p = await c.newPage();
    p.setDefaultTimeout(15_000);
    await p.goto(`${base}/app/channels`);
    await p.getByLabel('Email').fill(member.email);
    await p.getByLabel('Password').fill(PASSWORD);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.getByRole('heading', { name: 'Channels', level: 1 }).waitFor();
    await p.getByText('Connecting and disconnecting channels is for admins').waitFor();
    assert.equal(await p.getByRole('button', { name: /^(Connect|Disconnect|Reconnect)$/ }).count(), 0);
    await p.getByRole('link', { name: 'Brands' }).click();
    await p.getByText('Acme Teas').waitFor();
    assert.equal(await p.getByRole('button', { name: /Create brand|Edit brand|Add product/ }).count(), 0);
    await c.close();
  });

  it('every page: no serious or critical axe violation, screenshots at 1280 and 390 px, no horizontal scroll on a phone', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
      for (const [route, heading] of PAGES) {
        await page.goto(`${base}/app/${route}`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        // loaded: no loading state left (cheaper than waiting for the network to be idle)
        await page.waitForFunction('!document.querySelector("[aria-busy=true]")');
        if (width === 1280) await axe(page, route);
        await shot(`pages-${width}-${route}`);
        const [scrollWidth, innerWidth] = await page.evaluate<[number, number]>(
          '[document.documentElement.scrollWidth, window.innerWidth]',
        );
        assert.ok(scrollWidth <= innerWidth, `${route}: page is ${scrollWidth}px wide at ${innerWidth}px`);
      }
    }
    // the header at 1280 px is one row: the menu does not wrap
    await page.setViewportSize({ width: 1280, height: 860 });
    const navHeight = await page.evaluate<number>('document.querySelector("header").getBoundingClientRect().height');
    assert.ok(navHeight < 64, `header ${navHeight}px high at 1280 px`);
    // on a phone the menu opens from its button
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'Calendar' }).click();
    await page.getByRole('heading', { name: 'Calendar', level: 1 }).waitFor();
    assert.deepEqual(foreignRequests, []);
    assert.deepEqual(pageErrors, []);
  });
});
