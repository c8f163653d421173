/**
 * YouTube WebSub leases end: the periodic job subscribes again, through the hub of the Google
 * simulator, the topics whose lease ends within a day and those left failed for over an hour.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PROVIDER_WEBHOOK_RENEW_JOB } from '../../src/modules/provider-webhooks/provider-webhooks.module.js';
import { hubSubscriptions } from '../../src/sandbox/simulators/google/websub-hub.routes.js';
import { connectPlatform, createPlatformOrg, type PlatformHarness, startPlatformHarness } from '../publishing/platform-harness.js';
import { INTERNAL_TOKEN } from '../publishing/publishing-harness.js';
import { waitFor } from '../support/wait.js';

const DAY_MS = 86_400_000;

const until = <T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000) =>
  waitFor(what, probe, timeoutMs, 100);

describe('YouTube WebSub lease renewal', () => {
  let h: PlatformHarness;
  let topic: string;
  const subscriptions = () => h.ctx.database.db;
  const row = () =>
    subscriptions()
      .selectFrom('provider_webhook_subscriptions')
      .selectAll()
      .where('platform', '=', 'youtube')
      .where('topic', '=', topic)
      .executeTakeFirstOrThrow();
  const subscribeCalls = () => h.youtube.ledger.count('websub_subscribe');
  const runJob = async () => {
    const job = h.ctx.root.areas.providerWebhooks.jobs.find((d) => d.name === PROVIDER_WEBHOOK_RENEW_JOB)!;
    assert.equal(job.cron, '*/15 * * * *');
    await job.handler({} as never, {} as never);
  };

  before(async () => {
    h = await startPlatformHarness((sims) => ({
      SERVICE_YOUTUBE_WEBHOOK_SECRET: 'websub-secret-for-tests',
      SERVICE_YOUTUBE_WEBSUB_HUB_URL: `${sims.youtube}/websub/subscribe`,
      SERVICE_YOUTUBE_WEBSUB_LEASE_SECONDS: String(5 * 86_400),
    }));
    const org = await createPlatformOrg(h, 'renewal');
    const channel = await connectPlatform(h, org, 'youtube');
    topic = `https://www.youtube.com/xml/feeds/videos.xml?channel_id=${channel.externalAccountId}`;
    const res = await h.ctx.app.inject({
      method: 'POST',
      url: '/v1/internal/provider-webhooks/provision',
      headers: { 'x-service-internal-token': INTERNAL_TOKEN },
      payload: { platforms: ['youtube'], dryRun: false },
    });
    assert.equal(res.json().platforms[0].outcome, 'provisioned', res.body);
    await until('the hub verified the topic', async () => (await row()).lease_expires_at !== null);
  });
  after(() => h?.close());

  it('leaves a lease far from its end alone and renews one ending within a day', async () => {
    const calls = subscribeCalls();
    await runJob();
    assert.equal(subscribeCalls(), calls, 'a lease 5 days away is not renewed');

    // the lease now ends in 2 hours
    const soon = new Date(Date.now() + 2 * 3_600_000);
    await subscriptions()
      .updateTable('provider_webhook_subscriptions')
      .set({ lease_expires_at: soon })
      .where('platform', '=', 'youtube')
      .where('topic', '=', topic)
      .execute();
    await runJob();
    assert.equal(subscribeCalls(), calls + 1);
    const renewed = await until('the hub verified the renewal', async () => {
      const r = await row();
      return r.lease_expires_at && r.lease_expires_at.getTime() > Date.now() + 4 * DAY_MS ? r : null;
    });
    assert.equal(renewed.state, 'active');
    const hub = [...hubSubscriptions(h.youtube.state).values()].find((s) => s.topic === topic);
    assert.equal(hub?.state, 'verified');
    assert.equal(hub?.leaseSeconds, 5 * 86_400);
  });

  it('asks again for a subscription left failed for over an hour, not for a fresh failure', async () => {
    const setFailed = (updatedAt: Date) =>
      subscriptions()
        .updateTable('provider_webhook_subscriptions')
        .set({ state: 'failed', updated_at: updatedAt })
        .where('platform', '=', 'youtube')
        .where('topic', '=', topic)
        .execute();
    const calls = subscribeCalls();
    await setFailed(new Date(Date.now() - 10 * 60_000));
    await runJob();
    assert.equal(subscribeCalls(), calls, 'a failure 10 minutes old waits');
    await setFailed(new Date(Date.now() - 2 * 3_600_000));
    await runJob();
    assert.equal(subscribeCalls(), calls + 1);
    await until('the hub verified it again', async () => (await row()).state === 'active');
  });
});
