/**
 * A batch commit announces its jobs in publish_batch.committed; an endpoint that opts in
 * (`batchJobEvents: true`) also gets one publish_job.created per job, the others do not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type PublishingHarness, startPublishingHarness } from '../publishing/publishing-harness.js';
import { type BatchOrg, createBatchOrg, dailySlots, items } from './batch-support.js';

describe('per-job events of a batch commit', () => {
  let h: PublishingHarness;
  let org: BatchOrg;

  before(async () => {
    h = await startPublishingHarness({ env: { SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32' } });
    org = await createBatchOrg(h, 'Batch events');
  });
  after(() => h.close());

  const deliveries = async (endpointId: string) => {
    const res = await api(h, org, 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data as Array<{ eventType: string; eventId: string }>;
  };
  const endpoint = async (body: Record<string, unknown>) => {
    const res = await api(h, org, 'POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks', ...body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };

  it('sends publish_job.created per job only to endpoints with batchJobEvents, publish_batch.committed to all', async () => {
    const plain = await endpoint({ eventTypes: ['publish_job.created', 'publish_batch.committed'] });
    const everything = await endpoint({});
    const optedIn = await endpoint({ eventTypes: ['publish_job.created'], batchJobEvents: true });
    assert.equal(plain.batchJobEvents, false);
    assert.equal(optedIn.batchJobEvents, true);

    const res = await api(h, org, 'POST', '/v1/publish/batches', {
      brandId: org.brandId,
      from: '2030-06-03T00:00:00.000Z',
      policy: dailySlots(),
      items: items(org, 3, 'events'),
      dryRun: false,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const jobIds = res.body.items.map((i: { publishJobId: string }) => i.publishJobId).sort();
    assert.equal(jobIds.length, 3);

    const types = async (id: string) => (await deliveries(id)).map((d) => d.eventType).sort();
    assert.deepEqual(await types(plain.webhookEndpointId), ['publish_batch.committed']);
    assert.deepEqual(await types(everything.webhookEndpointId), ['publish_batch.committed']);
    assert.deepEqual(await types(optedIn.webhookEndpointId), ['publish_job.created', 'publish_job.created', 'publish_job.created']);

    // the events carry the jobs as the API answers them, numbered first in each job's sequence
    const events = await h.ctx.database.db
      .selectFrom('events')
      .select(['data', 'sequence', 'audience'])
      .where('organization_id', '=', org.organizationId)
      .where('type', '=', 'publish_job.created')
      .execute();
    assert.deepEqual(events.map((e) => (e.data as { publishJobId: string }).publishJobId).sort(), jobIds);
    for (const e of events) {
      assert.equal(e.sequence, 1);
      assert.equal(e.audience, 'batch_job_events');
      assert.equal((e.data as { targets: unknown[] }).targets.length, 2);
    }

    // a job created directly still reaches every subscriber of publish_job.created
    const direct = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: { brandId: org.brandId, text: 'Direct', targets: [{ platform: 'facebook_page', channelAccountId: org.fb }] },
      dryRun: false,
    });
    assert.equal(direct.status, 201, JSON.stringify(direct.body));
    assert.deepEqual(await types(plain.webhookEndpointId), ['publish_batch.committed', 'publish_job.created']);
    assert.deepEqual(await types(everything.webhookEndpointId), ['publish_batch.committed', 'publish_job.created']);
    assert.equal((await types(optedIn.webhookEndpointId)).length, 4);

    // opting out later stops them for the next batch
    await api(h, org, 'PATCH', `/v1/webhook-endpoints/${optedIn.webhookEndpointId}`, { batchJobEvents: false });
    const again = await api(h, org, 'POST', '/v1/publish/batches', {
      brandId: org.brandId,
      from: '2030-06-03T00:00:00.000Z',
      policy: dailySlots(),
      items: items(org, 2, 'later'),
      dryRun: false,
    });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal((await types(optedIn.webhookEndpointId)).length, 4);
  });
});
