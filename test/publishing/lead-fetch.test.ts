/**
 * The worker fetches publish jobs ahead of their due time and holds them (SERVICE_PUBLISH_LEAD_SECONDS):
 * a held job publishes at, never before, its due time; a cancel or reschedule after the fetch still
 * wins. The hot path claims before it takes the policy slot: a channel at its concurrency limit waits
 * in the worker without blocking other channels, and a refusal for the per-minute rate gives the claim
 * back (queued again, the attempt not counted).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { POLICY_LIMITS } from '../../src/modules/publishing/publish-policies.js';
import {
  api,
  connectChannel,
  createOrg,
  type Org,
  type PublishingHarness,
  startPublishingHarness,
  waitFor,
  waitForJob,
} from './publishing-harness.js';

describe('publish worker: jobs fetched ahead, claims before slots', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };
  let n = 0;
  const text = (label: string) => `${label} #${++n} ${Date.now()}`;
  const publish = async (body: { text: string; channel?: string; platform?: string; scheduleAt?: string }) => {
    const r = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId: org.brandId,
        text: body.text,
        targets: [{ platform: body.platform ?? 'facebook_page', channelAccountId: body.channel ?? fb.channelAccountId }],
        ...(body.scheduleAt ? { scheduleAt: body.scheduleAt } : {}),
      },
      dryRun: false,
      enqueue: !body.scheduleAt,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.publishJobId as string;
  };
  const postsWith = (t: string) => h.meta.ledger.posts.filter((p) => p.text === t);
  const targetOf = async (jobId: string) => (await api(h, org, 'GET', `/v1/publish/jobs/${jobId}`)).body.targets[0];
  /** the worker fetched the target's publish job (active in pg-boss) */
  const fetched = async (targetId: string) => {
    const r = await sql<{ n: number }>`select count(*)::int as n from pgboss.job
			where name = 'publish.target' and data->>'targetId' = ${targetId} and state = 'active'`.execute(h.ctx.database.db);
    return Number(r.rows[0]?.n ?? 0) > 0;
  };

  before(async () => {
    h = await startPublishingHarness({ env: { SERVICE_PUBLISH_LEAD_SECONDS: '10', SERVICE_PUBLISH_WORKER_CONCURRENCY: '4' } });
    org = await createOrg(h, 'Lead');
    fb = await connectChannel(h, org, 'facebook_page');
    await h.ctx.startWorker();
  });
  after(() => h.close());

  it('holds a job fetched ahead and publishes it at, never before, its due time', async () => {
    const t = text('held');
    const due = Date.now() + 2500;
    const id = await publish({ text: t, scheduleAt: new Date(due).toISOString() });
    const target = await targetOf(id);
    await waitFor('the job fetched ahead', async () => Date.now() >= due || (await fetched(target.postTargetId)), 2000);
    // fetched before its due time (unless the host was too slow to look in time): not claimed, not sent
    if (Date.now() < due - 200) {
      assert.equal((await targetOf(id)).state, 'scheduled');
      assert.equal(postsWith(t).length, 0);
    }
    await waitForJob(h, org, id, ['published'], 10_000);
    const posts = postsWith(t);
    assert.equal(posts.length, 1);
    assert.ok(posts[0]!.at >= due, `posted ${due - posts[0]!.at} ms before its due time`);
    // the worker's own completion statement moves the pg-boss job to completed (nothing left active to expire)
    await waitFor(
      'the publish job completed in pg-boss',
      async () => {
        const r = await sql<{ state: string }>`select state from pgboss.job
					where name = 'publish.target' and data->>'targetId' = ${target.postTargetId}`.execute(h.ctx.database.db);
        return r.rows.length === 1 && r.rows[0]!.state === 'completed';
      },
      5000,
    );
  });

  it('does not publish a target cancelled after its job was fetched ahead', async () => {
    const t = text('cancelled after fetch');
    const due = Date.now() + 2500;
    const id = await publish({ text: t, scheduleAt: new Date(due).toISOString() });
    const target = await targetOf(id);
    await waitFor('the job fetched ahead', () => fetched(target.postTargetId), 2000);
    const cancelled = await api(h, org, 'POST', `/v1/publish/jobs/${id}/cancel`, { reason: 'not today' });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    // the held job falls due, finds its version gone and ends without a call
    await waitFor('the held job done', async () => Date.now() > due && !(await fetched(target.postTargetId)), 8000);
    assert.equal(postsWith(t).length, 0);
    assert.equal((await targetOf(id)).state, 'cancelled');
  });

  it('publishes a target rescheduled after its job was fetched ahead once, at the new time', async () => {
    const t = text('rescheduled after fetch');
    const first = Date.now() + 5000;
    const id = await publish({ text: t, scheduleAt: new Date(first).toISOString() });
    const target = await targetOf(id);
    await waitFor('the job fetched ahead', () => fetched(target.postTargetId), 2000);
    const later = first + 2500;
    const r = await api(h, org, 'POST', `/v1/publish/jobs/${id}/schedule`, { scheduleAt: new Date(later).toISOString() });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await waitForJob(h, org, id, ['published'], 12_000);
    const posts = postsWith(t);
    assert.equal(posts.length, 1);
    assert.ok(posts[0]!.at >= later, `posted ${later - posts[0]!.at} ms before its new due time`);
  });

  it('claims a channel at its concurrency limit and waits for its slot without holding up other channels', async () => {
    const limit = POLICY_LIMITS.standard.perChannel;
    const store = h.ctx.deps.counters.shared;
    const key = `publish:slots:channel:${fb.channelAccountId}`;
    // the channel's slots held elsewhere (another worker's calls)
    const held: string[] = [];
    for (let i = 0; i < limit; i++) held.push((await store.acquireSlot(key, limit, 60_000))!);
    const threads = await connectChannel(h, org, 'threads');
    const blocked = [text('blocked a'), text('blocked b'), text('blocked c')];
    const free = [text('free a'), text('free b')];
    const blockedIds = await Promise.all(blocked.map((t) => publish({ text: t })));
    const freeIds = await Promise.all(free.map((t) => publish({ text: t, platform: 'threads', channel: threads.channelAccountId })));
    for (const id of freeIds) await waitForJob(h, org, id, ['published'], 10_000);
    // claimed, waiting in the worker for the channel's slot: nothing sent
    for (const id of blockedIds) assert.equal((await targetOf(id)).state, 'publishing');
    for (const t of blocked) assert.equal(postsWith(t).length, 0);
    for (const s of held) await store.releaseSlot(key, s);
    for (const id of blockedIds) await waitForJob(h, org, id, ['published'], 10_000);
    for (const t of [...blocked, ...free]) assert.equal(postsWith(t).length, 1, t);
    for (const id of blockedIds) assert.equal((await targetOf(id)).attempts, 1);
  });

  it('gives the claim back when the channel is at its per-minute rate: queued again, the attempt not counted', async () => {
    const windowMs = 60_000;
    // far enough from the minute's end that the refusal and the checks fall in the same window
    if (Date.now() % windowMs > windowMs - 8000) await new Promise((r) => setTimeout(r, windowMs - (Date.now() % windowMs) + 50));
    const channel = await connectChannel(h, org, 'facebook_page');
    const windowStart = Math.floor(h.ctx.clock.now().getTime() / windowMs) * windowMs;
    const limit = POLICY_LIMITS.standard.perChannelPerMinute;
    // the rest of this minute's publishes on the channel used up
    const store = h.ctx.deps.counters.shared;
    const key = `publish:rate:channel:${channel.channelAccountId}:${windowStart}`;
    const used = await store.get(key);
    if (used < limit) await store.consume(key, limit - used, limit, windowMs + 5000);
    const t = text('rate limited');
    const id = await publish({ text: t, channel: channel.channelAccountId });
    const targetId = (await targetOf(id)).postTargetId as string;
    // a worker job waits for a new version of the target until the minute is over
    const next = await waitFor(
      'the claim given back',
      async () => {
        const r = await sql<{ version: number; start_after: Date }>`select (data->>'version')::int as version, start_after from pgboss.job
					where name = 'publish.target' and data->>'targetId' = ${targetId} and state in ('created', 'active')
					and start_after >= ${new Date(windowStart + windowMs)}`.execute(h.ctx.database.db);
        return r.rows[0] ?? null;
      },
      8000,
    );
    const target = await targetOf(id);
    assert.equal(target.state, 'queued');
    const row = await h.ctx.database.db
      .selectFrom('publish_targets')
      .select('version')
      .where('id', '=', targetId)
      .executeTakeFirstOrThrow();
    assert.equal(row.version, Number(next.version));
    assert.equal(target.attempts, 0);
    assert.equal(postsWith(t).length, 0);
  });
});
