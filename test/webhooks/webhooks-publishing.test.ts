/** End to end: a publish job in sandbox mode delivers its events, in order, signed, to a loopback receiver. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  api,
  connectChannel,
  createOrg,
  type Org,
  type PublishingHarness,
  startPublishingHarness,
  waitForJob,
} from '../publishing/publishing-harness.js';

describe('webhooks from publishing', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };
  let server: Server;
  const received: { headers: Record<string, string>; body: string }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    h = await startPublishingHarness({ env: { SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32' } });
    org = await createOrg(h, 'Hooks');
    fb = await connectChannel(h, org, 'facebook_page');
    await h.ctx.startWorker();
  });
  after(async () => {
    await h.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('delivers publish_job.created, publish_target.published and publish_job.completed in that order', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const ep = await api(h, org, 'POST', '/v1/webhook-endpoints', { url });
    assert.equal(ep.status, 201, JSON.stringify(ep.body));
    const created = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId: org.brandId,
        text: 'Webhooks end to end',
        targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
      },
      dryRun: false,
      enqueue: true,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const jobId = created.body.publishJobId as string;
    await waitForJob(h, org, jobId, ['published'], 30_000);
    const deadline = Date.now() + 15_000;
    const mine = () =>
      received
        .map((r) => ({ r, p: new Webhook(ep.body.secret).verify(r.body, r.headers) as { type: string; sequence?: number; data: any } }))
        .filter((x) => x.p.data.publishJobId === jobId);
    while (mine().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const events = mine()
      .map((x) => x.p)
      .sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
    assert.deepEqual(
      events.map((e) => e.type),
      ['publish_job.created', 'publish_target.published', 'publish_job.completed'],
    );
    assert.deepEqual(
      events.map((e) => e.sequence),
      [1, 2, 3],
    );
    assert.equal(events[2]!.data.status, 'published');
    assert.ok(events[1]!.data.providerPostId);
  });
  it('a burst of jobs published in shared batches: every job gets its three events, numbered 1-3 in order', async () => {
    const burstOrg = await createOrg(h, 'Hooks burst');
    const channel = await connectChannel(h, burstOrg, 'facebook_page');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/burst`;
    const ep = await api(h, burstOrg, 'POST', '/v1/webhook-endpoints', { url });
    assert.equal(ep.status, 201, JSON.stringify(ep.body));
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api(h, burstOrg, 'POST', '/v1/publish/jobs', {
          plan: {
            brandId: burstOrg.brandId,
            text: `Burst ${i}`,
            targets: [{ platform: 'facebook_page', channelAccountId: channel.channelAccountId }],
          },
          dryRun: false,
          enqueue: true,
        }),
      ),
    );
    const jobIds = created.map((c) => {
      assert.equal(c.status, 201, JSON.stringify(c.body));
      return c.body.publishJobId as string;
    });
    for (const jobId of jobIds) await waitForJob(h, burstOrg, jobId, ['published'], 60_000);
    const verify = () =>
      received
        .filter((r) => r.headers['webhook-id'] && r.body.includes('"publishJobId"'))
        .flatMap((r) => {
          try {
            return [new Webhook(ep.body.secret).verify(r.body, r.headers) as { type: string; sequence?: number; data: any }];
          } catch {
            return []; // signed for the other endpoint
          }
        })
        .filter((p) => jobIds.includes(p.data.publishJobId));
    const deadline = Date.now() + 30_000;
    while (verify().length < 36 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const events = verify();
    assert.equal(events.length, 36);
    for (const jobId of jobIds) {
      const ofJob = events.filter((e) => e.data.publishJobId === jobId).sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
      assert.deepEqual(
        ofJob.map((e) => [e.sequence, e.type]),
        [
          [1, 'publish_job.created'],
          [2, 'publish_target.published'],
          [3, 'publish_job.completed'],
        ],
        jobId,
      );
    }
  });

  it('records publish_job.created, publish_job.scheduled and publish_job.cancelled with consecutive sequence numbers', async () => {
    const created = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId: org.brandId,
        text: 'Schedule then cancel',
        targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
      },
      dryRun: false,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const jobId = created.body.publishJobId as string;
    const future = new Date(h.ctx.clock.now().getTime() + 3_600_000).toISOString();
    assert.equal((await api(h, org, 'POST', `/v1/publish/jobs/${jobId}/schedule`, { scheduleAt: future })).status, 200);
    assert.equal((await api(h, org, 'POST', `/v1/publish/jobs/${jobId}/cancel`, { reason: 'changed my mind' })).status, 200);
    const rows = await h.ctx.database.db
      .selectFrom('events')
      .select(['type', 'sequence', 'data'])
      .where('sequence_key', '=', jobId)
      .orderBy('sequence')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.type, r.sequence]),
      [
        ['publish_job.created', 1],
        ['publish_job.scheduled', 2],
        ['publish_job.cancelled', 3],
      ],
    );
    assert.equal((rows[2]!.data as { status: string }).status, 'cancelled');
  });
});
