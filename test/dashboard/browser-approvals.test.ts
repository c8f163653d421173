/**
 * The dashboard in Debian's Chromium, approvals: a member composes a post, which is submitted for
 * approval ("waiting for approval" on the post and the calendar); an admin rejects one with a reason from
 * the post page and approves another from the calendar, which is then published. A missed post is
 * offered a new time. Server in sandbox mode with a worker; X connected through the simulated consent.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { addMember, PASSWORD } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { freePort } from '../support/service-process.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureWebBuild, SCREENSHOTS } from './support.js';

describe('dashboard in a browser: approvals', { skip: CHROMIUM ? false : 'chromium not installed' }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;
  let member: Page;
  let admin: Page;
  const api = async (p: string) => (await (await fetch(`${base}${p}`, { headers: org.auth })).json()) as Record<string, any>;

  const signedIn = async (role: 'admin' | 'member') => {
    const c = await browser.newContext({ timezoneId: 'UTC', viewport: { width: 1280, height: 860 } });
    const p = await c.newPage();
    p.setDefaultTimeout(15_000);
    const who = await addMember(ctx, org.organizationId, role);
    await p.goto(`${base}/app/`);
    await p.getByLabel('Email').fill(who.email);
    await p.getByLabel('Password').fill(PASSWORD);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.getByTestId('who').filter({ hasText: who.email }).waitFor();
    return p;
  };
  const compose = async (text: string) => {
    await member.getByRole('link', { name: 'Compose' }).click();
    await member.getByRole('checkbox').first().check();
    await member.getByLabel('Text', { exact: true }).fill(text);
    await member.getByText('Ready to publish.').waitFor();
    await member.getByRole('button', { name: 'Submit for approval' }).click();
    await member.waitForURL(/\/app\/posts\/job_/);
    await member.getByText('Waiting for approval').waitFor();
    return member.url().split('/').pop()!;
  };

  before(async () => {
    ensureWebBuild();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ env: { SERVICE_PROVIDER_MODE: 'sandbox', SERVICE_PUBLIC_BASE_URL: base } });
    await ctx.app.listen({ host: '127.0.0.1', port });
    await ctx.startWorker();
    org = await ctx.createOrganization({ name: 'Approvals Org' });
    await ctx.createBrand(org.organizationId, 'Acme Coffee', { timezone: 'UTC' });
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: CHROMIUM_ARGS });
    // connecting a channel takes an API key (channels:write)
    const keyPage = await (await browser.newContext({ timezoneId: 'UTC' })).newPage();
    keyPage.setDefaultTimeout(15_000);
    await keyPage.goto(`${base}/app/`);
    await keyPage.getByText('Use an API key instead').click();
    await keyPage.getByRole('textbox', { name: 'API key' }).fill(org.apiKey);
    await keyPage.getByRole('button', { name: 'Continue with API key' }).click();
    await keyPage.getByRole('link', { name: 'Channels' }).click();
    await keyPage.getByLabel('Platform', { exact: true }).selectOption('x');
    await keyPage.getByLabel('Brand', { exact: true }).selectOption({ label: 'Acme Coffee' });
    await keyPage.getByRole('button', { name: 'Connect', exact: true }).click();
    await keyPage.waitForURL(/\/app\/channels\?channelConnect=connected/);
    admin = await signedIn('admin');
    member = await signedIn('member');
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it("a member's post waits for approval; an admin rejects it with a reason on the post page", async () => {
    const publishJobId = await compose('Draft for review');
    assert.equal((await api(`/v1/publish/jobs/${publishJobId}`)).status, 'pending_approval');
    await member.screenshot({ path: path.join(SCREENSHOTS, 'approval-waiting.png'), fullPage: true });
    // the member sees no decision buttons
    assert.equal(await member.getByRole('button', { name: 'Approve' }).count(), 0);

    await admin.goto(`${base}/app/posts/${publishJobId}`);
    await admin.getByText('Waiting for approval').waitFor();
    await admin.getByLabel('reason').fill('Needs a photo');
    await admin.getByRole('button', { name: 'Reject' }).click();
    await admin
      .getByTestId('job-status')
      .filter({ hasText: /^draft$/ })
      .waitFor();
    await admin.getByText('Needs a photo').waitFor();
    const job = await api(`/v1/publish/jobs/${publishJobId}`);
    assert.equal(job.approval.state, 'rejected');
    assert.equal(job.approval.reason, 'Needs a photo');
  });

  it('an admin approves from the calendar and the post is published', async () => {
    const publishJobId = await compose('Approved from the calendar');
    await admin.getByRole('link', { name: 'Calendar' }).click();
    const chip = admin.locator(`[data-job="${publishJobId}"]`);
    await chip.filter({ hasText: 'waiting for approval' }).waitFor();
    await admin.screenshot({ path: path.join(SCREENSHOTS, 'approval-calendar.png'), fullPage: true });
    await admin
      .locator(`[data-decide="${publishJobId}"]`)
      .getByRole('button', { name: /^approve/ })
      .click();
    await admin.locator(`[data-job="${publishJobId}"]`).filter({ hasNotText: 'waiting for approval' }).waitFor();
    await member.goto(`${base}/app/posts/${publishJobId}`);
    await member
      .getByTestId('job-status')
      .filter({ hasText: /^published$/ })
      .waitFor({ timeout: 20_000 });
    assert.equal((await api(`/v1/publish/jobs/${publishJobId}`)).approval.state, 'approved');
  });

  it('a missed post is offered a new time', async () => {
    // queued two hours ago with a limit of one hour (the worker was down): missed, not published
    ctx.clock.set(Date.now() - 2 * 3_600_000);
    let publishJobId: string;
    try {
      const channels = (await api('/v1/channel-accounts')).data as Array<{ channelAccountId: string; platform: string; brandId: string }>;
      const res = await fetch(`${base}/v1/publish/jobs`, {
        method: 'POST',
        headers: { ...org.auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          plan: {
            brandId: channels[0]!.brandId,
            text: 'Too late now',
            maxLatenessMinutes: 60,
            targets: [{ platform: channels[0]!.platform, channelAccountId: channels[0]!.channelAccountId }],
          },
          dryRun: false,
          enqueue: true,
        }),
      });
      assert.equal(res.status, 201, await res.clone().text());
      publishJobId = ((await res.json()) as { publishJobId: string }).publishJobId;
    } finally {
      ctx.clock.set(Date.now());
    }
    await admin.goto(`${base}/app/posts/${publishJobId}`);
    await admin
      .getByTestId('job-status')
      .filter({ hasText: /^missed$/ })
      .waitFor({ timeout: 20_000 });
    await admin.getByText('Missed its time').waitFor();
    const at = new Date(Date.now() + 86_400_000);
    await admin.getByLabel('new time').fill(at.toISOString().slice(0, 16));
    await admin.getByRole('button', { name: 'Reschedule' }).click();
    await admin
      .getByTestId('job-status')
      .filter({ hasText: /^scheduled$/ })
      .waitFor();
  });
});
