/**
 * Members draft, admins approve (the policy table: publishing.drafts.manage submits,
 * publishing.results.manage decides), the organization's setting that lets members publish directly,
 * and the lateness limit (plan field, profile default, missed targets and rescheduling them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrandsService } from '../../src/modules/brands/brands.service.js';
import { createTestContext, TestClock } from '../support/harness.js';
import {
  api,
  connectChannel,
  createOrg,
  dashboardHeaders,
  type Org,
  type PublishingHarness,
  startPublishingHarness,
  waitForJob,
} from './publishing-harness.js';

describe('publish approvals and lateness', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };
  let member: Record<string, string>;
  let admin: Record<string, string>;
  let memberId: string;
  let adminId: string;

  const call = async (headers: Record<string, string>, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) => {
    const res = await h.ctx.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
    return { status: res.statusCode, body: res.body ? res.json() : null };
  };
  const plan = (text: string, extra: Record<string, unknown> = {}) => ({
    brandId: org.brandId,
    text,
    targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
    ...extra,
  });
  const draft = async (headers: Record<string, string>, text: string, extra: Record<string, unknown> = {}) => {
    const r = await call(headers, 'POST', '/v1/publish/jobs', { plan: plan(text, extra), dryRun: false });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };
  const eventsOf = async (jobId: string) =>
    (
      await h.ctx.database.db.selectFrom('events').select(['type', 'data']).where('sequence_key', '=', jobId).orderBy('sequence').execute()
    ).map((e) => e.type);
  const later = (ms: number) => new Date(Date.now() + ms).toISOString();

  before(async () => {
    h = await startPublishingHarness();
    org = await createOrg(h, 'Approvals');
    fb = await connectChannel(h, org, 'facebook_page');
    member = await dashboardHeaders(h, org, 'member');
    admin = await dashboardHeaders(h, org, 'admin');
    memberId = (await call(member, 'GET', '/v1/me')).body.user.userId;
    adminId = (await call(admin, 'GET', '/v1/me')).body.user.userId;
  });
  after(() => h.close());

  it('a member drafts but cannot publish directly: create with enqueue or scheduleAt, enqueue and schedule answer 403', async () => {
    for (const body of [
      { plan: plan('member enqueue'), dryRun: false, enqueue: true },
      { plan: plan('member schedule', { scheduleAt: later(3_600_000) }), dryRun: false },
    ]) {
      const r = await call(member, 'POST', '/v1/publish/jobs', body);
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(r.body.error, 'permission_denied');
      assert.match(r.body.message, /submit it for approval/);
    }
    // a dry run writes nothing and answers what would happen
    const dry = await call(member, 'POST', '/v1/publish/jobs', { plan: plan('member dry run'), enqueue: true });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.mode, 'dry_run');
    const job = await draft(member, 'member draft');
    assert.equal(job.status, 'draft');
    assert.equal(job.approval, null);
    const enq = await call(member, 'POST', `/v1/publish/jobs/${job.publishJobId}/enqueue`, {});
    assert.equal(enq.status, 403);
    assert.equal(enq.body.error, 'permission_denied');
    const sch = await call(member, 'POST', `/v1/publish/jobs/${job.publishJobId}/schedule`, { scheduleAt: later(3_600_000) });
    assert.equal(sch.status, 403);
    // nothing moved, no worker job exists
    const still = await api(h, org, 'GET', `/v1/publish/jobs/${job.publishJobId}`);
    assert.equal(still.body.targets[0].state, 'draft');
    const jobs = await h.ctx.database.sql.executeSql(`select 1 from pgboss.job where data->>'targetId' = $1`, [
      still.body.targets[0].postTargetId,
    ]);
    assert.equal(jobs.rows.length, 0);
    // admins (and API keys with publish:write) publish directly
    const byAdmin = await call(admin, 'POST', '/v1/publish/jobs', {
      plan: plan('admin schedules', { scheduleAt: later(3_600_000) }),
      dryRun: false,
    });
    assert.equal(byAdmin.status, 201, JSON.stringify(byAdmin.body));
    assert.equal(byAdmin.body.status, 'scheduled');
    assert.equal(byAdmin.body.approval, null);
  });

  it('submit, approve at the wanted time, submit again after a change, reject with a reason', async () => {
    const job = await draft(member, 'needs a yes');
    const wanted = later(7_200_000);
    const submitted = await call(member, 'POST', `/v1/publish/jobs/${job.publishJobId}/submit`, {
      scheduleAt: wanted,
      note: 'for the launch',
    });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    assert.equal(submitted.body.status, 'pending_approval');
    assert.equal(submitted.body.targets[0].state, 'pending_approval');
    assert.deepEqual(
      { ...submitted.body.approval, requestedAt: undefined },
      {
        state: 'pending',
        requestedBy: memberId,
        requestedAt: undefined,
        note: 'for the launch',
        scheduleAt: wanted,
        decidedBy: null,
        decidedAt: null,
        reason: null,
      },
    );
    // the listing filters on it
    const pending = await api(h, org, 'GET', `/v1/publish/jobs?status=pending_approval`);
    assert.ok(pending.body.data.some((j: { publishJobId: string }) => j.publishJobId === job.publishJobId));
    // a member cannot decide
    const selfApproved = await call(member, 'POST', `/v1/publish/jobs/${job.publishJobId}/approve`, {});
    assert.equal(selfApproved.status, 403);
    assert.equal(selfApproved.body.error, 'permission_denied');

    const approved = await call(admin, 'POST', `/v1/publish/jobs/${job.publishJobId}/approve`, {});
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.status, 'scheduled');
    assert.equal(approved.body.targets[0].scheduledAt, wanted);
    assert.equal(approved.body.targets[0].dueAt, wanted);
    assert.equal(approved.body.approval.state, 'approved');
    assert.equal(approved.body.approval.decidedBy, adminId);
    assert.ok(approved.body.approval.decidedAt);
    // the worker job for that time exists
    const waiting = await h.ctx.database.sql.executeSql(`select 1 from pgboss.job where data->>'targetId' = $1 and state = 'created'`, [
      approved.body.targets[0].postTargetId,
    ]);
    assert.equal(waiting.rows.length, 1);
    // approving twice is a wrong state
    const twice = await call(admin, 'POST', `/v1/publish/jobs/${job.publishJobId}/approve`, {});
    assert.equal(twice.status, 409);
    assert.equal(twice.body.error, 'publish_job_invalid_transition');

    // the member wants another time: the change goes back for approval
    const changed = await call(member, 'POST', `/v1/publish/jobs/${job.publishJobId}/submit`, { scheduleAt: later(10_800_000) });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.status, 'pending_approval');
    assert.equal(changed.body.approval.state, 'pending');
    assert.equal(changed.body.approval.decidedBy, null);

    const noReason = await call(admin, 'POST', `/v1/publish/jobs/${job.publishJobId}/reject`, {});
    assert.equal(noReason.status, 400);
    assert.equal(noReason.body.error, 'invalid_public_publish_reject_request');
    const rejected = await call(admin, 'POST', `/v1/publish/jobs/${job.publishJobId}/reject`, { reason: 'off brand' });
    assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
    assert.equal(rejected.body.status, 'draft');
    assert.equal(rejected.body.targets[0].state, 'draft');
    assert.equal(rejected.body.targets[0].dueAt, null);
    assert.equal(rejected.body.approval.state, 'rejected');
    assert.equal(rejected.body.approval.reason, 'off brand');
    assert.equal(rejected.body.approval.decidedBy, adminId);
    const again = await call(admin, 'POST', `/v1/publish/jobs/${job.publishJobId}/reject`, { reason: 'still' });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'publish_job_invalid_transition');
    // the approved time's worker job is stale now: no job of the current version waits
    const target = rejected.body.targets[0].postTargetId;
    const version = (
      await h.ctx.database.db.selectFrom('publish_targets').select('version').where('id', '=', target).executeTakeFirstOrThrow()
    ).version;
    const live = await h.ctx.database.sql.executeSql(
      `select 1 from pgboss.job where data->>'targetId' = $1 and (data->>'version')::int = $2 and state = 'created'`,
      [target, version],
    );
    assert.equal(live.rows.length, 0);

    assert.deepEqual(await eventsOf(job.publishJobId), [
      'publish_job.created',
      'publish_job.approval_requested',
      'publish_job.approved',
      'publish_job.approval_requested',
      'publish_job.rejected',
    ]);
  });

  it('an API key approves; without a time the job is queued and published', async () => {
    const job = await draft(member, 'approved by an agent');
    assert.equal((await call(member, 'POST', `/v1/publish/jobs/${job.publishJobId}/submit`)).status, 200);
    const approved = await api(h, org, 'POST', `/v1/publish/jobs/${job.publishJobId}/approve`, {});
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.status, 'queued');
    assert.match(approved.body.approval.decidedBy, /^key_/);
    // the worker runs from here to the end of the suite
    await h.ctx.startWorker();
    const done = await waitForJob(h, org, job.publishJobId, ['published']);
    assert.equal(done.approval.state, 'approved');
    assert.equal(h.meta.ledger.posts.filter((p) => p.text === 'approved by an agent').length, 1);
  });

  it("the organization's setting lets members publish directly; only an admin changes it", async () => {
    const read = await call(member, 'GET', '/v1/publish/settings');
    assert.equal(read.status, 200);
    assert.equal(read.body.membersPublishDirectly, false);
    const byMember = await call(member, 'PATCH', '/v1/publish/settings', { membersPublishDirectly: true });
    assert.equal(byMember.status, 403);
    const byKey = await h.ctx.app.inject({
      method: 'PATCH',
      url: '/v1/publish/settings',
      headers: org.auth,
      payload: { membersPublishDirectly: true },
    });
    assert.equal(byKey.statusCode, 401);
    const on = await call(admin, 'PATCH', '/v1/publish/settings', { membersPublishDirectly: true });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.equal(on.body.membersPublishDirectly, true);
    assert.equal(on.body.updatedBy, adminId);
    try {
      const direct = await call(member, 'POST', '/v1/publish/jobs', {
        plan: plan('member schedules directly', { scheduleAt: later(3_600_000) }),
        dryRun: false,
      });
      assert.equal(direct.status, 201, JSON.stringify(direct.body));
      assert.equal(direct.body.status, 'scheduled');
      const job = await draft(member, 'member queues later');
      const enq = await call(member, 'POST', `/v1/publish/jobs/${job.publishJobId}/enqueue`, {});
      assert.equal(enq.status, 200, JSON.stringify(enq.body));
      await waitForJob(h, org, job.publishJobId, ['published']);
    } finally {
      const off = await call(admin, 'PATCH', '/v1/publish/settings', { membersPublishDirectly: false });
      assert.equal(off.body.membersPublishDirectly, false);
    }
    const refused = await call(member, 'POST', '/v1/publish/jobs', { plan: plan('refused again'), dryRun: false, enqueue: true });
    assert.equal(refused.status, 403);
  });

  it('maxLatenessMinutes: from the plan, else the profile, else none; validated', async () => {
    const bad = await api(h, org, 'POST', '/v1/publish/jobs', { plan: plan('too lax', { maxLatenessMinutes: 10081 }), dryRun: false });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_public_publish_job_request');
    const save = (scheduleSettings: Record<string, unknown>) =>
      h.ctx.app.inject({
        method: 'PUT',
        url: '/v1/publishing-profiles',
        headers: org.auth,
        payload: {
          organizationId: org.organizationId,
          brandId: org.brandId,
          name: 'Timely',
          slug: 'timely',
          isDefault: true,
          scheduleSettings,
          channels: [{ channelAccountId: fb.channelAccountId, platform: 'facebook_page' }],
        },
      });
    const refused = await save({ maxLatenessMinutes: -1 });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.deepEqual(refused.json().fields[0].path, ['scheduleSettings', 'maxLatenessMinutes']);
    const saved = await save({ maxLatenessMinutes: 30 });
    assert.ok(saved.statusCode < 300, saved.body);
    const profileId = saved.json().profileId;
    const fromProfile = await draft(admin, 'profile limit', { targets: undefined, profileId });
    assert.equal(fromProfile.maxLatenessMinutes, 30);
    const own = await draft(admin, 'own limit', { targets: undefined, profileId, maxLatenessMinutes: 5 });
    assert.equal(own.maxLatenessMinutes, 5);
    const none = await draft(admin, 'no limit', { targets: undefined, profileId, maxLatenessMinutes: null });
    assert.equal(none.maxLatenessMinutes, null);
    assert.equal((await draft(admin, 'no profile')).maxLatenessMinutes, null);
    // a batch's jobs take the limit of the brand's default profile
    const product = await new BrandsService(h.ctx.database.db).createProduct(
      org.organizationId,
      org.brandId,
      { name: 'Beans', productUrl: 'https://shop.example/beans' },
      new Date(),
    );
    const batch = await api(h, org, 'POST', '/v1/publish/batches', {
      brandId: org.brandId,
      from: '2030-06-03T00:00:00.000Z',
      policy: { id: 'daily', horizonDays: 7, slots: [{ id: 'noon', localTime: '12:00', timezone: 'UTC' }] },
      items: [
        {
          clientAssetId: 'late-1',
          productId: product.productId,
          text: 'batch limit',
          targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
        },
      ],
      dryRun: false,
    });
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    const batchJob = await api(h, org, 'GET', `/v1/publish/jobs/${batch.body.items[0].publishJobId}`);
    assert.equal(batchJob.body.maxLatenessMinutes, 30);
  });

  it('a target found due past its limit is missed (event publish_target.missed), and can be rescheduled', async () => {
    // queued ten minutes ago (the worker was down since): one with a limit of 5 minutes, one without. They
    // are created through a second app on the same database whose clock is ten minutes behind, so the
    // running worker never sees the earlier time.
    const past = await createTestContext({ ...h.options, database: h.ctx.database, clock: new TestClock(Date.now() - 600_000) });
    let late: { publishJobId: string };
    let unlimited: { publishJobId: string };
    try {
      const body = (text: string, extra: Record<string, unknown>) => ({ plan: plan(text, extra), dryRun: false, enqueue: true });
      late = (await api({ ...h, ctx: past }, org, 'POST', '/v1/publish/jobs', body('stale post', { maxLatenessMinutes: 5 }))).body;
      unlimited = (await api({ ...h, ctx: past }, org, 'POST', '/v1/publish/jobs', body('late but wanted', {}))).body;
    } finally {
      await past.close();
    }
    {
      const missed = await waitForJob(h, org, late.publishJobId, ['missed']);
      assert.equal(missed.status, 'missed');
      assert.equal(missed.targets[0].lastError.code, 'max_lateness_exceeded');
      assert.match(missed.targets[0].stateReason, /10 minutes after its time, past the job's limit of 5 minutes/);
      await waitForJob(h, org, unlimited.publishJobId, ['published']);
      assert.equal(h.meta.ledger.posts.filter((p) => p.text === 'stale post').length, 0);
      assert.equal(h.meta.ledger.posts.filter((p) => p.text === 'late but wanted').length, 1);
      const events = await eventsOf(late.publishJobId);
      assert.ok(events.includes('publish_target.missed'), events.join());
      assert.ok(events.includes('publish_job.completed'), events.join());
      // rescheduled, it publishes (its due time is the new one)
      const rescheduled = await api(h, org, 'POST', `/v1/publish/jobs/${late.publishJobId}/schedule`, { scheduleAt: later(1500) });
      assert.equal(rescheduled.status, 200, JSON.stringify(rescheduled.body));
      assert.equal(rescheduled.body.status, 'scheduled');
      await waitForJob(h, org, late.publishJobId, ['published']);
      assert.equal(h.meta.ledger.posts.filter((p) => p.text === 'stale post').length, 1);
    }
  });
});
