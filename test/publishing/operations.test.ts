/** Reconciliation sweep, URL reconciliation, slot recommendations and the channel disconnect hook. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { metaPageTokens } from '../support/simulators.js';
import {
  api,
  connectChannel,
  createOrg,
  dashboardHeaders,
  INTERNAL_TOKEN,
  type Org,
  type PublishingHarness,
  publishedEventCount,
  startPublishingHarness,
  waitForJob,
} from './publishing-harness.js';

/**
 * A target the sweep queued again, as a test sees it once a worker runs (started by an earlier test): still
 * queued, or already claimed by that worker, or published by it.
 */
const REQUEUED = ['queued', 'publishing', 'published'];

describe('publishing operations', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };
  const db = () => h.ctx.database.db;
  const create = async (text: string, extra: Record<string, unknown> = {}, enqueue = true) => {
    const r = await api(h, org, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId: org.brandId,
        text,
        targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
        ...extra,
      },
      dryRun: false,
      enqueue,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };
  let admin: Record<string, string>;
  const reconcile = (headers: Record<string, string> = admin) =>
    h.ctx.app.inject({
      method: 'POST',
      url: '/v1/internal/publish-queue/reconcile',
      headers,
    });

  /** A post made on the page straight through the platform (not by the service); its id. */
  const postOnPage = async (message: string) => {
    const s = h.meta.state;
    const [pageToken] = metaPageTokens(s, [s.seed.pageId]) as [string];
    const res = await fetch(`${h.meta.baseUrls.facebook_page.apiBaseUrl}/${s.seed.pageId}/feed`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ message, access_token: pageToken }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { id: string }).id;
  };
  /** Targets a worker claimed (their lease ended a second ago) and died with. */
  const claimedAndDied = (targetIds: string[], set: Record<string, unknown> = {}) =>
    db()
      .updateTable('publish_targets')
      .set({ state: 'publishing', lease_until: new Date(Date.now() - 1000), attempts: 1, ...set })
      .where('id', 'in', targetIds)
      .execute();

  before(async () => {
    h = await startPublishingHarness();
    org = await createOrg(h, 'Ops');
    fb = await connectChannel(h, org, 'facebook_page');
    admin = await dashboardHeaders(h, org);
  });
  after(() => h.close());

  it('the reconcile route takes a signed-in admin: 401 without a session, 403 for a member or a service token', async () => {
    const none = await reconcile({});
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error, 'dashboard_session_required');
    const refusals: Record<string, string>[] = [
      await dashboardHeaders(h, org, 'member'),
      { 'x-service-internal-token': INTERNAL_TOKEN },
      { 'x-service-principal-token': 'anything' },
    ];
    for (const headers of refusals) {
      const refused = await reconcile(headers);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().error, 'permission_denied');
    }
    // an API key is not a dashboard session
    const bearer = await reconcile(org.auth);
    assert.equal(bearer.statusCode, 401);
  });

  it("an admin's sweep re-queues only their organization's lost targets", async () => {
    const orgs = [await createOrg(h, 'Sweep A'), await createOrg(h, 'Sweep B')];
    const targets: string[] = [];
    for (const o of orgs) {
      const ch = await connectChannel(h, o, 'facebook_page');
      const r = await api(h, o, 'POST', '/v1/publish/jobs', {
        plan: {
          brandId: o.brandId,
          text: `lost in ${o.organizationId}`,
          targets: [{ platform: 'facebook_page', channelAccountId: ch.channelAccountId }],
        },
        dryRun: false,
        enqueue: true,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      targets.push(r.body.targets[0].postTargetId);
    }
    // both worker jobs vanished and both targets are overdue
    await h.ctx.database.sql.executeSql(`delete from pgboss.job where data->>'targetId' = any($1)`, [targets]);
    await db()
      .updateTable('publish_targets')
      .set({ next_attempt_at: new Date(Date.now() - 120_000) })
      .where('id', 'in', targets)
      .execute();
    const state = async (id: string) => {
      const row = await db().selectFrom('publish_targets').select(['version', 'state']).where('id', '=', id).executeTakeFirstOrThrow();
      const jobs = await h.ctx.database.sql.executeSql(`select 1 from pgboss.job where data->>'targetId' = $1 and state = 'created'`, [id]);
      return { ...row, waitingJobs: jobs.rows.length };
    };
    const [a, b] = [await state(targets[0]!), await state(targets[1]!)];
    const member = await reconcile(await dashboardHeaders(h, orgs[0]!, 'member'));
    assert.equal(member.statusCode, 403);
    assert.equal((await state(targets[0]!)).waitingJobs, 0);

    const r = await reconcile(await dashboardHeaders(h, orgs[0]!));
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().requeuedCount, 1);
    const a2 = await state(targets[0]!);
    assert.equal(a2.version, a.version + 1);
    assert.equal(a2.waitingJobs, 1);
    // the other organization's target is untouched: same version, still no worker job
    assert.deepEqual(await state(targets[1]!), b);
    // its own admin's sweep re-queues it
    const rb = await reconcile(await dashboardHeaders(h, orgs[1]!));
    assert.equal(rb.json().requeuedCount, 1);
    assert.equal((await state(targets[1]!)).waitingJobs, 1);
  });

  it('re-queues a due target whose worker job was lost and finds out what became of those stuck publishing', async () => {
    const lost = await create('lost job');
    const stuck = await create('stuck publishing');
    const spent = await create('stuck with its attempts spent');
    const late = await create('stuck past its lateness limit', { maxLatenessMinutes: 5 });
    const landed = await create('landed before the worker died');
    const twice = await create('on the page twice');
    const lostTarget = lost.targets[0].postTargetId;
    // the worker job vanished (e.g. a crash before it was stored elsewhere) and the target is overdue
    await h.ctx.database.sql.executeSql(`delete from pgboss.job where data->>'targetId' = $1`, [lostTarget]);
    await db()
      .updateTable('publish_targets')
      .set({ next_attempt_at: new Date(Date.now() - 120_000) })
      .where('id', '=', lostTarget)
      .execute();
    // the page has the post of one, and two posts with the text of another (the sweep cannot tell which)
    const landedPost = await postOnPage('landed before the worker died');
    await postOnPage('on the page twice');
    await postOnPage('something else');
    await postOnPage('on the page twice');
    // a worker claimed these and died
    const ids = (...jobs: Array<{ targets: Array<{ postTargetId: string }> }>) => jobs.map((j) => j.targets[0]!.postTargetId);
    await claimedAndDied(ids(stuck, landed, twice));
    // the default attempt budget is 5: this one used them all
    await claimedAndDied(ids(spent), { attempts: 5 });
    // due ten minutes ago, its limit is five
    await claimedAndDied(ids(late), { due_at: new Date(Date.now() - 600_000) });
    const r = await reconcile();
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().requeuedCount, 1);
    assert.deepEqual(
      [r.json().publishedCount, r.json().retriedCount, r.json().failedCount, r.json().missedCount, r.json().flaggedCount],
      [1, 1, 1, 1, 1],
    );
    const target = async (job: { publishJobId: string }) =>
      (await api(h, org, 'GET', `/v1/publish/jobs/${job.publishJobId}`)).body.targets[0];
    const found = await target(landed);
    assert.equal(found.state, 'published');
    assert.equal(found.providerPostId, landedPost);
    assert.match(found.providerUrl, /^https:\/\/www\.facebook\.com\//);
    // never landed, within its limit and budget: queued again (its crashed attempt counted)
    const requeued = await target(stuck);
    assert.equal(requeued.state, 'queued');
    assert.equal(requeued.lastError.code, 'not_published');
    assert.equal(requeued.attempts, 1);
    const never = await target(spent);
    assert.equal(never.state, 'failed');
    assert.equal(never.lastError.code, 'not_published');
    const tooLate = await target(late);
    assert.equal(tooLate.state, 'missed');
    assert.equal(tooLate.lastError.code, 'max_lateness_exceeded');
    assert.match(tooLate.stateReason, /10 minutes after its time, past the job's limit of 5 minutes/);
    const unsure = await target(twice);
    assert.equal(unsure.state, 'needs_attention');
    assert.equal(unsure.lastError.code, 'lease_expired');
    // a second sweep finds nothing new
    const again = (await reconcile()).json();
    assert.equal(
      again.requeuedCount + again.publishedCount + again.failedCount + again.retriedCount + again.missedCount + again.flaggedCount,
      0,
    );
    await h.ctx.startWorker();
    const published = await waitForJob(h, org, lost.publishJobId, ['published']);
    assert.equal(published.targets[0].attempts, 1);
    assert.equal(h.meta.ledger.posts.filter((p) => p.text === 'lost job').length, 1);
    // the post that never landed is published by its new attempt, once
    const retried = await waitForJob(h, org, stuck.publishJobId, ['published']);
    assert.equal(retried.targets[0].attempts, 2);
    assert.equal(h.meta.ledger.posts.filter((p) => p.text === 'stuck publishing').length, 1);
    // the others' original worker jobs are stale (they are no longer waiting): they never post
    for (const text of ['stuck with its attempts spent', 'stuck past its lateness limit'])
      assert.equal(h.meta.ledger.posts.filter((p) => p.text === text).length, 0);
    assert.equal(h.meta.ledger.posts.filter((p) => p.text === 'landed before the worker died').length, 1);
  });

  it('two stuck targets with the same text and one post on the page: one takes the post, the other is looked up again', async () => {
    // not queued: the worker an earlier test started must not publish them meanwhile
    const a = await create('one post for two stuck targets', {}, false);
    const b = await create('one post for two stuck targets', {}, false);
    const postId = await postOnPage('one post for two stuck targets');
    // both claimed by a worker that died; the sweep looks both up at once
    await claimedAndDied([a.targets[0].postTargetId, b.targets[0].postTargetId]);
    const first = (await reconcile()).json();
    // one takes the post. The other's lookup either ran beside it and found the same post (it asks again at
    // the next sweep), or began once the first had found it, which it then excludes: the post is not its, so
    // it is queued again at once. Which of the two depends on how the lookups interleave.
    assert.deepEqual([first.publishedCount, first.flaggedCount], [1, 0], JSON.stringify(first));
    assert.equal(first.lookupsDeferredCount + first.retriedCount, 1, JSON.stringify(first));
    // the next sweep excludes the post the first one recorded: the other never landed, so it is queued again
    const second = (await reconcile()).json();
    assert.deepEqual(
      [second.publishedCount, second.retriedCount, second.lookupsDeferredCount, second.flaggedCount],
      [0, first.lookupsDeferredCount, 0, 0],
      JSON.stringify(second),
    );
    const targets = await Promise.all(
      [a, b].map(async (j) => (await api(h, org, 'GET', `/v1/publish/jobs/${j.publishJobId}`)).body.targets[0]),
    );
    // one took the post; the other was queued again (the worker an earlier test started may have claimed it already)
    const took = targets.filter((t) => t.state === 'published' && t.providerPostId === postId);
    assert.equal(took.length, 1, JSON.stringify(targets));
    const other = targets.find((t) => t !== took[0]);
    assert.ok(REQUEUED.includes(other.state), other.state);
  });

  it('on a page posting at volume, the lookup stops at the post recorded before the claim instead of walking two minutes of posts', async () => {
    // 4,100 posts of the page's other publishers within the last seconds (41 pages of 100), then a post of
    // ours, recorded published before the crashed attempts were claimed, then the attempts
    let n = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (n < 4_100) await postOnPage(`flood ${n++}`);
      }),
    );
    // jobs not queued: the worker an earlier test started must not publish them meanwhile
    const ours = await create('recorded before the claim', {}, false);
    const ourPost = await postOnPage('recorded before the claim');
    await db()
      .updateTable('publish_targets')
      .set({ state: 'published', provider_post_id: ourPost, published_at: new Date(Date.now() - 3_600_000) })
      .where('id', '=', ours.targets[0].postTargetId)
      .execute();
    const landed = await create('landed after a flood', {}, false);
    const never = await create('never landed after a flood', {}, false);
    await postOnPage('landed after a flood');
    for (let i = 0; i < 30; i++) await postOnPage(`after ${i}`);
    // claimed after our post was recorded (the lease is 5 minutes: claimed 5 minutes and 1 second ago)
    await claimedAndDied([landed.targets[0].postTargetId, never.targets[0].postTargetId]);
    const r = (await reconcile()).json();
    assert.deepEqual([r.publishedCount, r.retriedCount, r.flaggedCount], [1, 1, 0], JSON.stringify(r));
    const state = async (job: { publishJobId: string }) =>
      (await api(h, org, 'GET', `/v1/publish/jobs/${job.publishJobId}`)).body.targets[0].state;
    assert.equal(await state(landed), 'published');
    // re-queued for another attempt; the worker an earlier test started may have claimed it already
    assert.ok(REQUEUED.includes(await state(never)));
  });

  it('a lookup that failed for a passing reason is tried again by the next sweep, and flagged only after 15 minutes', async () => {
    // not queued: the worker an earlier test started must not publish them meanwhile
    const job = await create('stuck while the listing was down', {}, false);
    const other = await create('stuck long ago while the listing was down', {}, false);
    const targetId = job.targets[0].postTargetId;
    await claimedAndDied([targetId]);
    await claimedAndDied([other.targets[0].postTargetId], { lease_until: new Date(Date.now() - 16 * 60_000) });
    // the account's listing answers 500 to every lookup of this sweep
    h.meta.failures.inject({ kind: 'server_error', operation: 'read', times: 100 });
    const first = (await reconcile()).json();
    h.meta.failures.clear();
    assert.equal(first.lookupsDeferredCount, 1);
    // the one whose lease ended 16 minutes ago has waited long enough: flagged
    assert.equal(first.flaggedCount, 1);
    const row = await db().selectFrom('publish_targets').select(['state', 'version']).where('id', '=', targetId).executeTakeFirstOrThrow();
    assert.equal(row.state, 'publishing');
    // the listing answers again: the post never landed, so it is queued again
    const second = (await reconcile()).json();
    assert.equal(second.lookupsDeferredCount, 0);
    assert.equal(second.retriedCount, 1);
    const after = (await api(h, org, 'GET', `/v1/publish/jobs/${job.publishJobId}`)).body.targets[0];
    assert.ok(REQUEUED.includes(after.state), after.state);
    const flagged = (await api(h, org, 'GET', `/v1/publish/jobs/${other.publishJobId}`)).body.targets[0];
    assert.equal(flagged.state, 'needs_attention');
    assert.match(flagged.stateReason ?? flagged.lastError.message, /lookup failed/);
  });

  it('a post noted by a worker that stopped mid-burst is published from its note: one event, no lookup, no second post', async () => {
    // not queued: the worker an earlier test started must not publish them meanwhile
    const leaseEnded = await create('noted, lease ended', {}, false);
    const noteOld = await create('noted long ago, lease running', {}, false);
    const noteYoung = await create('noted just now, lease running', {}, false);
    const id = (job: { targets: Array<{ postTargetId: string }> }) => job.targets[0]!.postTargetId;
    const now = Date.now();
    const note = (n: number, ageMs: number) => ({
      posted_post_id: `${h.meta.state.seed.pageId}_noted${n}`,
      posted_url: `https://www.facebook.com/${h.meta.state.seed.pageId}/posts/noted${n}`,
      posted_at: new Date(now - ageMs),
    });
    await claimedAndDied([id(leaseEnded)], note(1, 5_000));
    // the longest hold is 30 s and the sweep waits a minute more: 100 s is past it, 10 s is not
    await claimedAndDied([id(noteOld)], { ...note(2, 100_000), lease_until: new Date(now + 200_000) });
    await claimedAndDied([id(noteYoung)], { ...note(3, 10_000), lease_until: new Date(now + 200_000) });
    const reads = h.meta.ledger.count('read');
    const r = (await reconcile()).json();
    assert.deepEqual([r.publishedCount, r.retriedCount, r.flaggedCount], [2, 0, 0], JSON.stringify(r));
    assert.equal(h.meta.ledger.count('read'), reads, 'no lookup on the platform');
    assert.equal(h.meta.ledger.posts.filter((p) => p.text.startsWith('noted')).length, 0, 'no post made');
    const events = (targetId: string) => publishedEventCount(h, targetId);
    for (const [job, n, ageMs] of [
      [leaseEnded, 1, 5_000],
      [noteOld, 2, 100_000],
    ] as const) {
      const body = (await api(h, org, 'GET', `/v1/publish/jobs/${job.publishJobId}`)).body;
      assert.equal(body.status, 'published');
      const t = body.targets[0];
      assert.equal(t.state, 'published');
      assert.equal(t.providerPostId, note(n, ageMs).posted_post_id);
      assert.equal(t.providerUrl, note(n, ageMs).posted_url);
      assert.equal(t.publishedAt, note(n, ageMs).posted_at.toISOString());
      assert.equal(await events(id(job)), 1);
      const row = await db()
        .selectFrom('publish_targets')
        .select(['posted_post_id', 'posted_at'])
        .where('id', '=', id(job))
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.posted_post_id, row.posted_at], [null, null]);
    }
    // a young note within a running lease is its worker's to write: left as it is
    const young = await db()
      .selectFrom('publish_targets')
      .select(['state', 'posted_post_id'])
      .where('id', '=', id(noteYoung))
      .executeTakeFirstOrThrow();
    assert.deepEqual([young.state, young.posted_post_id], ['publishing', note(3, 0).posted_post_id]);
    assert.equal(await events(id(noteYoung)), 0);
    // a second sweep writes nothing twice
    const again = (await reconcile()).json();
    assert.equal(again.publishedCount, 0, JSON.stringify(again));
    assert.equal(await events(id(leaseEnded)), 1);
    await db()
      .updateTable('publish_targets')
      .set({ state: 'cancelled', posted_post_id: null, posted_at: null })
      .where('id', '=', id(noteYoung))
      .execute();
  });

  it('URL reconciliation fetches permalinks of published targets lacking one (dry run first)', async () => {
    const job = await create('needs a url');
    const done = await waitForJob(h, org, job.publishJobId, ['published']);
    const expected = done.targets[0].providerUrl;
    assert.ok(expected);
    await db().updateTable('publish_targets').set({ provider_url: null }).where('id', '=', done.targets[0].postTargetId).execute();
    const dry = await api(h, org, 'POST', '/v1/publish/url-reconciliation', {
      publishJobId: job.publishJobId,
    });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.mode, 'dry_run');
    assert.deepEqual(
      dry.body.targets.map((t: { result: string }) => t.result),
      ['would_fetch'],
    );
    const reads = h.meta.ledger.count('read');
    const real = await api(h, org, 'POST', '/v1/publish/url-reconciliation', {
      postTargetIds: [done.targets[0].postTargetId],
      dryRun: false,
    });
    assert.equal(real.body.mode, 'reconciled');
    assert.equal(real.body.updatedCount, 1);
    assert.ok(h.meta.ledger.count('read') > reads);
    const after = (await api(h, org, 'GET', `/v1/publish/jobs/${job.publishJobId}`)).body;
    assert.ok(after.targets[0].providerUrl?.includes(done.targets[0].providerPostId.split('_').pop()));
    const other = await createOrg(h, 'Other');
    assert.equal(
      (
        await api(h, other, 'POST', '/v1/publish/url-reconciliation', {
          publishJobId: job.publishJobId,
        })
      ).body.error,
      'public_publish_job_not_found',
    );
  });

  it('recommends the next free slot from the saved policy in the brand timezone, with conflicts', async () => {
    const { brandId } = await h.ctx.createBrand(org.organizationId, 'NY brand', { timezone: 'America/New_York' });
    const nyOrg = { ...org, brandId };
    const ch = await connectChannel(h, nyOrg, 'threads');
    // no saved policy: the built-in one, in the brand's timezone (09:00 New York = 14:00Z in January)
    const builtIn = await api(
      h,
      nyOrg,
      'GET',
      `/v1/publish/slots?brandId=${brandId}&channelAccountId=${ch.channelAccountId}&from=2030-01-05T00:00:00Z`,
    );
    assert.equal(builtIn.status, 200, JSON.stringify(builtIn.body));
    assert.equal(builtIn.body.policy.source.kind, 'default');
    assert.ok(
      Math.abs(Date.parse(builtIn.body.recommendation.scheduleAt) - Date.parse('2030-01-05T14:00:00Z')) <= 600_000,
      builtIn.body.recommendation.scheduleAt,
    );
    const prof = await h.ctx.app.inject({
      method: 'PUT',
      url: '/v1/publishing-profiles',
      headers: org.auth,
      payload: {
        organizationId: org.organizationId,
        brandId,
        name: 'NY',
        isDefault: true,
        scheduleSettings: {
          batchPolicy: {
            horizonDays: 7,
            slots: [
              {
                id: 'ten',
                localTime: '10:00',
                timezone: 'America/New_York',
                weekdays: [1, 2, 3, 4, 5],
                jitterSecondsMin: -600,
                jitterSecondsMax: 600,
                minGapMinutes: 60,
              },
            ],
          },
        },
        channels: [
          {
            channelAccountId: ch.channelAccountId,
            platform: 'threads',
            enabled: true,
          },
        ],
      },
    });
    assert.ok(prof.statusCode < 300, prof.body);
    // Monday 2030-01-07, 10:00 in New York is 15:00Z; Saturday and Sunday are not in the policy
    const q = `/v1/publish/slots?brandId=${brandId}&channelAccountId=${ch.channelAccountId}&from=2030-01-05T00:00:00Z`;
    const free = await api(h, nyOrg, 'GET', q);
    assert.equal(free.status, 200, JSON.stringify(free.body));
    assert.equal(free.body.mode, 'preview');
    const first = Date.parse(free.body.recommendation.scheduleAt);
    assert.ok(Math.abs(first - Date.parse('2030-01-07T15:00:00Z')) <= 600_000, free.body.recommendation.scheduleAt);
    assert.equal(free.body.policy.source.kind, 'profile');
    assert.deepEqual(free.body.conflicts, []);
    // a post already at 15:05Z blocks Monday's whole jitter window (60 min gap)
    const r = await api(h, nyOrg, 'POST', '/v1/publish/jobs', {
      plan: {
        brandId,
        text: 'monday post',
        scheduleAt: '2030-01-07T15:05:00Z',
        targets: [{ platform: 'threads', channelAccountId: ch.channelAccountId }],
      },
      dryRun: false,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const busy = await api(h, nyOrg, 'GET', q);
    const next = Date.parse(busy.body.recommendation.scheduleAt);
    assert.ok(Math.abs(next - Date.parse('2030-01-08T15:00:00Z')) <= 600_000, busy.body.recommendation.scheduleAt);
    assert.equal(busy.body.conflicts.length, 1);
    assert.equal(busy.body.conflicts[0].conflictingTargets[0].postTargetId, r.body.targets[0].postTargetId);
    assert.ok(busy.body.checkedSlotCount >= 2);
    const bad = await api(h, nyOrg, 'GET', '/v1/publish/slots?channelAccountId=x');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_public_publish_slot_query');
    assert.equal((await api(h, nyOrg, 'GET', '/v1/publish/slots?brandId=brd_nope')).body.error, 'brand_not_found');

    // two targets of the channel in flight: one noted by its worker (published, its outcome held), one not
    const inFlight: string[] = [];
    for (const text of ['in flight, noted', 'in flight, not noted']) {
      const j = await api(h, nyOrg, 'POST', '/v1/publish/jobs', {
        plan: { brandId, text, targets: [{ platform: 'threads', channelAccountId: ch.channelAccountId }] },
        dryRun: false,
      });
      assert.equal(j.status, 201, JSON.stringify(j.body));
      inFlight.push(j.body.targets[0].postTargetId);
    }
    await claimedAndDied(inFlight);
    await db()
      .updateTable('publish_targets')
      .set({ posted_post_id: 'threads-noted-1', posted_url: 'https://www.threads.net/@page/post/noted1', posted_at: new Date() })
      .where('id', '=', inFlight[0]!)
      .execute();

    // disconnecting the channel cancels its scheduled target and reports it; of the two in flight, the one
    // whose post was noted stays publishing (it is published), the other needs attention
    const del = await h.ctx.app.inject({
      method: 'DELETE',
      url: `/v1/channel-accounts/${ch.channelAccountId}`,
      headers: org.auth,
      payload: { organizationId: org.organizationId },
    });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(del.json().disconnectSummary.cancelledPostTargetCount, 1);
    assert.equal(del.json().disconnectSummary.needsAttentionPostTargetCount, 1);
    assert.equal((await api(h, nyOrg, 'GET', `/v1/publish/jobs/${r.body.publishJobId}`)).body.status, 'cancelled');
    const states = async () =>
      (await db().selectFrom('publish_targets').select(['id', 'state']).where('id', 'in', inFlight).orderBy('id').execute()).map((t) =>
        t.id === inFlight[0] ? `noted:${t.state}` : `other:${t.state}`,
      );
    assert.deepEqual((await states()).sort(), ['noted:publishing', 'other:needs_attention']);
    // the sweep writes the noted outcome (its lease ended): published, with the noted post
    await reconcile();
    assert.deepEqual((await states()).sort(), ['noted:published', 'other:needs_attention']);
    const noted = await db()
      .selectFrom('publish_targets')
      .select(['provider_post_id'])
      .where('id', '=', inFlight[0]!)
      .executeTakeFirstOrThrow();
    assert.equal(noted.provider_post_id, 'threads-noted-1');
  });
});
