/** Plans, job creation and the client's state changes through HTTP (the worker is not running here). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { api, connectChannel, createOrg, type Org, type PublishingHarness, startPublishingHarness } from './publishing-harness.js';

describe('publish plans and jobs', () => {
  let h: PublishingHarness;
  let org: Org;
  let other: Org;
  let fb: { channelAccountId: string };
  let threads: { channelAccountId: string };
  const plan = (extra: Record<string, unknown> = {}) => ({
    brandId: org.brandId,
    text: `post ${Math.random()}`,
    targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
    ...extra,
  });

  before(async () => {
    h = await startPublishingHarness();
    org = await createOrg(h, 'Jobs');
    other = await createOrg(h, 'Other');
    fb = await connectChannel(h, org, 'facebook_page');
    threads = await connectChannel(h, org, 'threads');
  });
  after(() => h.close());

  it('previews a plan: per-target issues, platform counting, target text override', async () => {
    const r = await api(h, org, 'POST', '/v1/publish/plans/preview', {
      brandId: org.brandId,
      text: '😀'.repeat(130),
      media: [],
      targets: [
        { platform: 'threads', channelAccountId: threads.channelAccountId },
        {
          platform: 'facebook_page',
          channelAccountId: fb.channelAccountId,
          text: '',
        },
        { platform: 'x', channelAccountId: fb.channelAccountId },
      ],
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.mode, 'preview');
    assert.equal(r.body.valid, false);
    const [t0, t1, t2] = r.body.targets;
    assert.equal(t0.textLength, 520);
    assert.deepEqual(
      t0.issues.map((i: { code: string }) => i.code),
      ['text_too_long'],
    );
    assert.equal(t1.text, '');
    assert.deepEqual(
      t1.issues.map((i: { code: string }) => i.code),
      ['text_or_media_required'],
    );
    assert.ok(
      t2.issues.some((i: { code: string; severity: string }) => i.code === 'channel_platform_mismatch' && i.severity === 'blocking'),
    );
    assert.ok(t2.issues.some((i: { code: string }) => i.code === 'duplicate_target'));
    assert.equal(r.body.issues.length, t0.issues.length + t1.issues.length + t2.issues.length);
    const bad = await api(h, org, 'POST', '/v1/publish/plans/preview', {
      brandId: org.brandId,
      text: 'x',
      media: [],
      targets: [],
      extra: 1,
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_public_publish_plan_request');
  });

  it('answers 422 publish_plan_validation_failed with the issues, and resolves media library ids of the organization only', async () => {
    const r = await api(h, org, 'POST', '/v1/agent/publish', {
      plan: {
        ...plan(),
        mediaLibraryItemIds: ['med_unknown'],
        productId: 'prd_nope',
      },
      dryRun: false,
    });
    assert.equal(r.status, 422);
    assert.equal(r.body.error, 'publish_plan_validation_failed');
    assert.deepEqual(r.body.issues.map((i: { code: string }) => i.code).sort(), ['media_library_item_not_found', 'product_not_found']);
    const other = await api(h, org, 'POST', '/v1/agent/publish', {
      plan: { brandId: org.brandId, text: 't', targets: [] },
    });
    assert.equal(other.status, 422);
    assert.ok(other.body.issues.some((i: { code: string }) => i.code === 'targets_required'));
  });

  it('expands a profile into its enabled connected channels', async () => {
    const prof = await h.ctx.app.inject({
      method: 'PUT',
      url: '/v1/publishing-profiles',
      headers: org.auth,
      payload: {
        organizationId: org.organizationId,
        brandId: org.brandId,
        name: 'Main',
        channels: [
          {
            channelAccountId: fb.channelAccountId,
            platform: 'facebook_page',
            enabled: true,
          },
          {
            channelAccountId: threads.channelAccountId,
            platform: 'threads',
            enabled: false,
          },
        ],
      },
    });
    assert.ok(prof.statusCode < 300, prof.body);
    const r = await api(h, org, 'POST', '/v1/agent/publish', {
      plan: {
        brandId: org.brandId,
        text: 'from profile',
        profileId: prof.json().profileId,
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(
      r.body.preview.targets.map((t: { channelAccountId: string }) => t.channelAccountId),
      [fb.channelAccountId],
    );
    const missing = await api(h, org, 'POST', '/v1/agent/publish', {
      plan: { brandId: org.brandId, text: 'x', profileId: 'prf_missing' },
    });
    assert.ok(missing.body.issues.some((i: { code: string }) => i.code === 'profile_not_found'));
  });

  it('previews the agent plan exactly as the create resolves it: profile, library items, scheduleAt, no media', async () => {
    const prof = await h.ctx.app.inject({
      method: 'PUT',
      url: '/v1/publishing-profiles',
      headers: org.auth,
      payload: {
        organizationId: org.organizationId,
        brandId: org.brandId,
        name: 'Preview',
        channels: [{ channelAccountId: fb.channelAccountId, platform: 'facebook_page', enabled: true }],
      },
    });
    assert.ok(prof.statusCode < 300, prof.body);
    const agentPlan = {
      brandId: org.brandId,
      text: 'from profile',
      profileId: prof.json().profileId,
      mediaLibraryItemIds: ['med_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      scheduleAt: '2001-01-01T00:00:00Z',
    };
    const preview = await api(h, org, 'POST', '/v1/publish/plans/preview', agentPlan);
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.deepEqual(
      preview.body.targets.map((t: { channelAccountId: string }) => t.channelAccountId),
      [fb.channelAccountId],
    );
    const codes = (issues: { code: string; path: string[] }[]) => issues.map((i) => `${i.code}@${i.path.join('.')}`).sort();
    assert.deepEqual(codes(preview.body.issues), ['media_library_item_not_found@mediaLibraryItemIds.0', 'schedule_at_in_past@scheduleAt']);
    // the create meets the very same issues
    for (const dryRun of [true, false]) {
      const created = await api(h, org, 'POST', '/v1/agent/publish', { plan: agentPlan, dryRun });
      assert.equal(created.status, 422);
      assert.deepEqual(created.body.issues, preview.body.issues);
    }
    // a valid agent plan: the dry run's preview is the preview
    const { scheduleAt: _s, mediaLibraryItemIds: _m, ...validPlan } = agentPlan;
    const validPreview = await api(h, org, 'POST', '/v1/publish/plans/preview', validPlan);
    assert.equal(validPreview.body.valid, true, JSON.stringify(validPreview.body));
    const dry = await api(h, org, 'POST', '/v1/agent/publish', { plan: validPlan });
    assert.equal(dry.status, 200);
    assert.deepEqual(dry.body.preview, validPreview.body);
    // an unknown profile is an issue, not a validation error
    const missing = await api(h, org, 'POST', '/v1/publish/plans/preview', { brandId: org.brandId, text: 'x', profileId: 'prf_missing' });
    assert.equal(missing.status, 200);
    assert.equal(missing.body.valid, false);
    assert.ok(missing.body.issues.some((i: { code: string }) => i.code === 'profile_not_found'));
    // the specification's shape still previews; a property of neither shape is one field naming the allowed ones
    assert.equal((await api(h, org, 'POST', '/v1/publish/plans/preview', { ...plan(), media: [] })).status, 200);
    const bad = await api(h, org, 'POST', '/v1/publish/plans/preview', { ...plan(), colour: 'red' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_public_publish_plan_request');
    assert.equal(bad.body.fields.length, 1, JSON.stringify(bad.body));
    assert.deepEqual(bad.body.fields[0].path, ['colour']);
    assert.ok(bad.body.fields[0].allowed.includes('mediaLibraryItemIds'));
  });

  it('a created job (201) answers the warnings of its plan; the replay answers the job', async () => {
    const body = {
      plan: plan({ targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId, settings: { colour: 'red' } }] }),
      dryRun: false,
      idempotencyKey: 'warn-1',
    };
    const preview = await api(h, org, 'POST', '/v1/publish/plans/preview', body.plan);
    const expected = preview.body.issues.filter((i: { severity: string }) => i.severity === 'warning');
    assert.ok(expected.some((i: { code: string }) => i.code === 'setting_unknown'));
    const created = await api(h, org, 'POST', '/v1/publish/jobs', body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.warnings, expected);
    const replay = await api(h, org, 'POST', '/v1/publish/jobs', body);
    assert.equal(replay.status, 200);
    assert.equal(replay.body.publishJobId, created.body.publishJobId);
    assert.equal(replay.body.warnings, undefined);
    const clean = await api(h, org, 'POST', '/v1/agent/publish', { plan: plan(), dryRun: false });
    assert.equal(clean.status, 201);
    assert.deepEqual(clean.body.warnings, []);
  });

  it('idempotencyKey returns the first job; a different body with the same key is 409', async () => {
    const body = { plan: plan(), dryRun: false, idempotencyKey: 'idem-1' };
    const first = await api(h, org, 'POST', '/v1/publish/jobs', body);
    assert.equal(first.status, 201);
    assert.equal(first.body.status, 'draft');
    const again = await api(h, org, 'POST', '/v1/publish/jobs', body);
    assert.equal(again.status, 200);
    assert.equal(again.body.publishJobId, first.body.publishJobId);
    const clash = await api(h, org, 'POST', '/v1/publish/jobs', {
      ...body,
      title: 'changed',
    });
    assert.equal(clash.status, 409);
    assert.equal(clash.body.error, 'publish_idempotency_key_reused');
    // the key is per organization
    const otherChannel = await connectChannel(h, other, 'facebook_page');
    const o = await api(h, other, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId: other.brandId,
        text: 'o',
        targets: [
          {
            platform: 'facebook_page',
            channelAccountId: otherChannel.channelAccountId,
          },
        ],
      },
      dryRun: false,
      idempotencyKey: 'idem-1',
    });
    assert.equal(o.status, 201);
    assert.notEqual(o.body.publishJobId, first.body.publishJobId);
  });

  it('walks the allowed transitions and refuses the others with 409', async () => {
    const created = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: plan(),
      dryRun: false,
    });
    const id = created.body.publishJobId;
    assert.equal(created.body.targets[0].state, 'draft');
    const past = await api(h, org, 'POST', `/v1/publish/jobs/${id}/schedule`, {
      scheduleAt: new Date(h.ctx.clock.now().getTime() - 1000).toISOString(),
    });
    assert.equal(past.status, 400);
    assert.equal(past.body.error, 'invalid_public_publish_schedule_request');
    const future = new Date(h.ctx.clock.now().getTime() + 3_600_000).toISOString();
    const scheduled = await api(h, org, 'POST', `/v1/publish/jobs/${id}/schedule`, { scheduleAt: future });
    assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
    assert.equal(scheduled.body.status, 'scheduled');
    assert.equal(scheduled.body.targets[0].scheduledAt, future);
    const queued = await api(h, org, 'POST', `/v1/publish/jobs/${id}/enqueue`);
    assert.equal(queued.status, 200);
    assert.equal(queued.body.targets[0].state, 'queued');
    const requeue = await api(h, org, 'POST', `/v1/publish/jobs/${id}/enqueue`);
    assert.equal(requeue.status, 409);
    assert.equal(requeue.body.error, 'publish_job_not_enqueueable');
    const cancelled = await api(h, org, 'POST', `/v1/publish/jobs/${id}/cancel`, { reason: 'changed my mind' });
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.cancelReason, 'changed my mind');
    for (const [action, code, payload] of [
      ['cancel', 'publish_job_not_cancellable', {}],
      ['schedule', 'publish_job_not_schedulable', { scheduleAt: future }],
      ['enqueue', 'publish_job_not_enqueueable', undefined],
    ] as const) {
      const r = await api(h, org, 'POST', `/v1/publish/jobs/${id}/${action}`, payload);
      assert.equal(r.status, 409, action);
      assert.equal(r.body.error, code);
    }
    // every version bump left stale worker jobs behind; none may publish
    const versions = await h.ctx.database.db
      .selectFrom('publish_targets')
      .select(['version', 'state'])
      .where('job_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(versions.state, 'cancelled');
    assert.ok(versions.version >= 4);
  });

  it('validates with the media library facts and keeps referenced media from being deleted', async () => {
    const upload = async (name: string) => {
      const data = readFileSync(new URL(`../fixtures/media/${name}`, import.meta.url)).toString('base64');
      const r = await api(h, org, 'POST', '/v1/media', { dataBase64: data });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.mediaLibraryItemId as string;
    };
    const image = await upload('sample.jpg'); // 64 x 48
    const video = await upload('sample.mp4'); // 1 s
    const preview = async (platform: string, channelAccountId: string, id: string) =>
      api(h, org, 'POST', '/v1/publish/plans/preview', {
        brandId: org.brandId,
        text: 'media',
        media: [{ mediaLibraryItemId: id, kind: 'image', url: 'ignored' }],
        targets: [{ platform, channelAccountId }],
      });
    const ig = await connectChannel(h, org, 'instagram_business');
    const small = await preview('instagram_business', ig.channelAccountId, image);
    assert.deepEqual(
      small.body.issues.filter((i: { severity: string }) => i.severity === 'blocking').map((i: { code: string }) => i.code),
      ['image_too_small'],
    );
    const short = await preview('instagram_business', ig.channelAccountId, video);
    assert.ok(
      short.body.issues.some(
        (i: { code: string; path: string[] }) => i.code === 'video_too_short' && i.path.join('.') === 'media.0.durationSeconds',
      ),
    );
    const foreign = await api(h, other, 'POST', '/v1/agent/publish', {
      plan: { brandId: other.brandId, text: 'x', mediaLibraryItemIds: [image], targets: [] },
    });
    assert.ok(foreign.body.issues.some((i: { code: string }) => i.code === 'media_library_item_not_found'));
    // a scheduled target keeps its media
    const job = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: { ...plan(), mediaLibraryItemIds: [image], scheduleAt: new Date(h.ctx.clock.now().getTime() + 3_600_000).toISOString() },
      dryRun: false,
    });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    assert.equal(job.body.media[0].mediaLibraryItemId, image);
    const refused = await h.ctx.app.inject({ method: 'DELETE', url: `/v1/media/${image}`, headers: org.auth });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().error, 'media_item_in_use');
    await api(h, org, 'POST', `/v1/publish/jobs/${job.body.publishJobId}/cancel`, {});
    const deleted = await h.ctx.app.inject({ method: 'DELETE', url: `/v1/media/${image}`, headers: org.auth });
    assert.equal(deleted.statusCode, 202, deleted.body);
  });

  it('lists with filters and a cursor; another organization sees 404', async () => {
    const all = await api(h, org, 'GET', '/v1/publish/jobs?limit=1');
    assert.equal(all.status, 200);
    assert.equal(all.body.data.length, 1);
    assert.ok(all.body.nextCursor);
    const next = await api(h, org, 'GET', `/v1/publish/jobs?limit=1&cursor=${all.body.nextCursor}`);
    assert.ok(
      next.body.data.every(
        (j: { publishJobId: string }) => !all.body.data.some((a: { publishJobId: string }) => a.publishJobId === j.publishJobId),
      ),
    );
    const cancelled = await api(h, org, 'GET', '/v1/publish/jobs?status=cancelled');
    assert.ok(cancelled.body.data.length >= 1 && cancelled.body.data.every((j: { status: string }) => j.status === 'cancelled'));
    const badCursor = await api(h, org, 'GET', `/v1/publish/jobs?status=draft&cursor=${all.body.nextCursor}`);
    assert.equal(badCursor.status, 400);
    assert.equal(badCursor.body.error, 'invalid_public_publish_job_query');
    const badStatus = await api(h, org, 'GET', '/v1/publish/jobs?status=nope');
    assert.equal(badStatus.body.error, 'invalid_public_publish_job_query');
    const id = all.body.data[0].publishJobId;
    const foreign = await api(h, other, 'GET', `/v1/publish/jobs/${id}`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error, 'public_publish_job_not_found');
    assert.equal((await api(h, other, 'POST', `/v1/publish/jobs/${id}/cancel`, {})).body.error, 'public_publish_job_not_found');
    assert.ok(
      (await api(h, other, 'GET', '/v1/publish/jobs')).body.data.every(
        (j: { organizationId: string }) => j.organizationId === other.organizationId,
      ),
    );
    // another organization's channel is not found for validation either
    const r = await api(h, other, 'POST', '/v1/publish/plans/preview', {
      brandId: other.brandId,
      text: 't',
      media: [],
      targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
    });
    assert.ok(r.body.issues.some((i: { code: string }) => i.code === 'channel_not_found'));
  });
});

describe('publishing feature gates', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };
  before(async () => {
    h = await startPublishingHarness({
      env: {
        SERVICE_PUBLISH_JOB_WRITE_ENABLED: 'false',
        SERVICE_PUBLISH_ENQUEUE_ENABLED: 'false',
        SERVICE_PUBLISH_SCHEDULE_WRITE_ENABLED: 'false',
        SERVICE_PUBLISH_CANCEL_WRITE_ENABLED: 'false',
        SERVICE_PUBLISH_URL_RECONCILIATION_ENABLED: 'false',
      },
    });
    org = await createOrg(h, 'Gates');
    fb = await connectChannel(h, org, 'facebook_page');
  });
  after(() => h.close());

  it('answers 403 with each gate code; dry runs stay available', async () => {
    const p = {
      brandId: org.brandId,
      text: 'gated',
      targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
    };
    assert.equal((await api(h, org, 'POST', '/v1/agent/publish', { plan: p })).status, 200);
    assert.equal(
      (
        await api(h, org, 'POST', '/v1/agent/publish', {
          plan: p,
          dryRun: false,
        })
      ).body.error,
      'publish_job_write_disabled',
    );
    const id = 'job_01HZZZZZZZZZZZZZZZZZZZZZZZ';
    assert.equal((await api(h, org, 'POST', `/v1/publish/jobs/${id}/enqueue`)).body.error, 'publish_enqueue_disabled');
    assert.equal(
      (
        await api(h, org, 'POST', `/v1/publish/jobs/${id}/schedule`, {
          scheduleAt: new Date(Date.now() + 60_000).toISOString(),
        })
      ).body.error,
      'publish_schedule_write_disabled',
    );
    assert.equal((await api(h, org, 'POST', `/v1/publish/jobs/${id}/cancel`, {})).body.error, 'publish_cancel_write_disabled');
    const urls = await api(h, org, 'POST', '/v1/publish/url-reconciliation', {
      dryRun: false,
    });
    assert.equal(urls.status, 403);
    assert.equal(urls.body.error, 'publish_url_reconciliation_disabled');
    assert.equal((await api(h, org, 'POST', '/v1/publish/url-reconciliation', {})).status, 200);
  });
});
