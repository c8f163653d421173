/**
 * Crash safety with a real worker process on PostgreSQL: 200 targets are being published by
 * `service-api worker` when it is killed with SIGKILL; a new worker and the reconciliation sweep then
 * finish the work. The targets the kill left in flight are looked up in the page's posts
 * (GET /{page-id}/posts): found (its post landed) or queued again (it did not), none needs_attention;
 * every target ends published, none is lost and none is published twice (counted on the simulator's
 * ledger). Then the lateness limit: targets queued while the worker was down for two hours, a killed
 * worker and a new one: those with a limit of an hour are all missed (no post), the others published.
 * Skipped without DATABASE_URL (the embedded database admits one process).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { META_SANDBOX_APP, type RunningMetaSimulator, startMetaSimulator } from '../../src/sandbox/simulators/meta.simulator.js';
import { addMember, DASHBOARD, signIn } from '../support/auth.js';
import { createTestContext, REAL_DATABASE_URL, type TestClock, type TestContext } from '../support/harness.js';
import { serviceArgs } from '../support/service-process.js';
import { metaPageTokens } from '../support/simulators.js';
import { LiveClock, waitFor } from './publishing-harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TARGETS = 200;
const ORGS = 5;

describe('worker crash', {
  skip: REAL_DATABASE_URL ? false : 'set DATABASE_URL to run the crash test against PostgreSQL',
}, () => {
  let meta: RunningMetaSimulator;
  let ctx: TestContext;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];

  /** the organizations' admins (the dashboard sweep covers the admin's organization), their API keys, brands and pages */
  const orgs: Array<{ admin: string; auth: Record<string, string>; brandId: string; channels: string[] }> = [];
  const sweep = async () => {
    for (const { admin } of orgs) {
      const swept = await ctx.app.inject({
        method: 'POST',
        url: '/v1/internal/publish-queue/reconcile',
        headers: { cookie: `service_dashboard_session=${admin}`, origin: DASHBOARD },
      });
      assert.equal(swept.statusCode, 200, swept.body);
    }
  };
  const stopAll = async () => {
    for (const c of children)
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGKILL');
        await new Promise((r) => c.once('exit', r));
      }
  };

  const startWorker = () => {
    const child = spawn(process.execPath, serviceArgs('worker'), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.resume();
    children.push(child);
    return child;
  };

  before(async () => {
    meta = await startMetaSimulator({ containerDelayMs: 10 });
    const s = meta.state;
    const [page1, page2] = metaPageTokens(s, [s.seed.pageId, s.seed.secondPageId]);
    const tokens = { PAGE1: page1!, PAGE2: page2! };
    env = {
      SERVICE_LOG_LEVEL: 'silent',
      SERVICE_DASHBOARD_ORIGINS: DASHBOARD,
      SERVICE_CHANNEL_TOKEN_ENV_REFS: Object.entries(tokens)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
      SERVICE_FACEBOOK_PAGE_CLIENT_ID: META_SANDBOX_APP.clientId,
      SERVICE_FACEBOOK_PAGE_CLIENT_SECRET: META_SANDBOX_APP.clientSecret,
      SERVICE_FACEBOOK_PAGE_API_BASE_URL: meta.baseUrls.facebook_page.apiBaseUrl,
      SERVICE_FACEBOOK_PAGE_AUTH_BASE_URL: meta.baseUrls.facebook_page.authBaseUrl,
      SERVICE_FACEBOOK_PAGE_UPLOAD_BASE_URL: meta.baseUrls.facebook_page.uploadBaseUrl,
      SERVICE_PUBLISH_LEASE_SECONDS: '2',
      SERVICE_PUBLISH_RECONCILE_GRACE_SECONDS: '1',
      SERVICE_PUBLISH_WORKER_CONCURRENCY: '8',
      SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true',
    };
    ctx = await createTestContext({ env, clock: new LiveClock() as TestClock });
    env.DATABASE_URL = ctx.config.env.DATABASE_URL!;
    env.SERVICE_DATA_DIR = ctx.config.dataDir;
    env.SERVICE_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
  });

  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await ctx?.close();
    await meta?.close();
  });

  it('kills the worker mid-way and loses or duplicates nothing', {
    timeout: 290_000,
  }, async (t) => {
    const t0 = Date.now();
    const s = meta.state;
    const jobIds: string[] = [];
    const texts = new Map<string, string>();
    for (let o = 0; o < ORGS; o++) {
      const org = await ctx.createOrganization({ name: `Crash ${o}` });
      const admin = await signIn(ctx, (await addMember(ctx, org.organizationId, 'admin')).email);
      const auth = { authorization: `Bearer ${org.apiKey}` };
      const { brandId } = await ctx.createBrand(org.organizationId, `Crash brand ${o}`);
      const channels: string[] = [];
      for (const [ref, page] of [
        ['env:PAGE1', s.seed.pageId],
        ['env:PAGE2', s.seed.secondPageId],
      ] as const) {
        const r = await ctx.app.inject({
          method: 'PUT',
          url: '/v1/channel-accounts',
          headers: auth,
          payload: {
            organizationId: org.organizationId,
            platform: 'facebook_page',
            externalAccountId: page,
            displayName: 'page',
            accessTokenRef: ref,
            brandId,
          },
        });
        assert.ok(r.statusCode < 300, r.body);
        channels.push(r.json().channelAccountId);
      }
      orgs.push({ admin, auth, brandId, channels });
      for (let i = 0; i < TARGETS / ORGS / 2; i++) {
        const text = `crash post ${o}-${i}`;
        const r = await ctx.app.inject({
          method: 'POST',
          url: '/v1/publish/jobs',
          headers: auth,
          payload: {
            plan: {
              brandId,
              text,
              targets: channels.map((c) => ({
                platform: 'facebook_page',
                channelAccountId: c,
              })),
            },
            dryRun: false,
            enqueue: true,
          },
        });
        assert.equal(r.statusCode, 201, r.body);
        jobIds.push(r.json().publishJobId);
        for (const t of r.json().targets) texts.set(t.postTargetId, text);
      }
    }
    assert.equal(texts.size, TARGETS);

    t.diagnostic(`created ${TARGETS} targets in ${Date.now() - t0} ms`);
    const first = startWorker();
    await waitFor('a quarter published', async () => meta.ledger.posts.length >= TARGETS / 4, 90_000, 5);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = meta.ledger.posts.length;
    t.diagnostic(`killed after ${atKill} posts at ${Date.now() - t0} ms`);
    assert.ok(atKill < TARGETS, `the worker finished before the kill (${atKill})`);
    const inFlight = (await ctx.database.db.selectFrom('publish_targets').select('id').where('state', '=', 'publishing').execute()).map(
      (r) => r.id,
    );

    startWorker();
    const db = ctx.database.db;
    const settled = await waitFor(
      'every target settled',
      async () => {
        // the sweep normally runs every minute from the worker's cron; here each organization's admin drives it
        await sweep();
        const rows = await db.selectFrom('publish_targets').select(['id', 'state']).execute();
        if (process.env.CRASH_DEBUG) {
          const c: Record<string, number> = {};
          for (const r of rows) c[r.state] = (c[r.state] ?? 0) + 1;
          t.diagnostic(`${Date.now() - t0} ${JSON.stringify(c)} recv=${meta.ledger.posts.length}`);
        }
        return rows.every((r) => ['published', 'failed', 'needs_attention', 'missed'].includes(r.state)) ? rows : null;
      },
      90_000,
      500,
    );
    const received = new Map<string, number>();
    for (const p of meta.ledger.posts) received.set(p.text, (received.get(p.text) ?? 0) + 1);
    let published = 0;
    let failed = 0;
    let flagged = 0;
    for (const row of settled) {
      if (row.state === 'published') published += 1;
      else if (row.state === 'failed') failed += 1;
      else flagged += 1;
    }
    // the kill left targets in flight; the sweep found out what became of every one of them, and
    // queued again those whose post never landed: every target ends published
    const requeued = await db
      .selectFrom('publish_targets')
      .select('id')
      .where('id', 'in', inFlight.length > 0 ? inFlight : ['none'])
      .where('attempts', '>', 1)
      .execute();
    t.diagnostic(
      `${inFlight.length} in flight at the kill, ${requeued.length} of them queued again by the sweep, ${flagged} needs_attention`,
    );
    assert.equal(flagged, 0, 'no target needs attention: Facebook lists the page posts');
    assert.equal(failed, 0, 'no target failed: a post that never landed is queued again');
    assert.equal(published, TARGETS);
    for (const [text, count] of received) assert.ok(count <= 2, `${text} received ${count} times (two pages)`);
    assert.equal(settled.length, TARGETS);
    // every post the simulator received belongs to exactly one published target
    const totalReceived = meta.ledger.posts.length;
    assert.equal(totalReceived, published, `received ${totalReceived}, published ${published}, failed ${failed}`);
    const perTarget = await db
      .selectFrom('publish_targets')
      .select(['id', 'provider_post_id', 'state'])
      .where('state', '=', 'published')
      .execute();
    const postIds = new Set(meta.ledger.posts.map((p) => p.postId));
    for (const t of perTarget) assert.ok(postIds.has(t.provider_post_id!), `published target ${t.id} has a post on the simulator`);
    assert.equal(new Set(perTarget.map((t) => t.provider_post_id)).size, perTarget.length, 'no two targets share a post');
    t.diagnostic(`settled at ${Date.now() - t0} ms: ${published} published, ${failed} failed, ${totalReceived} received`);
    await stopAll();
  });

  it('a worker down for longer than the lateness limit publishes nothing stale', { timeout: 200_000 }, async (t) => {
    const t0 = Date.now();
    const before = meta.ledger.posts.length;
    const limited = new Set<string>();
    const unlimited = new Set<string>();
    // queued two hours ago while no worker ran: the API's clock is set back for the creates
    ctx.clock.set(Date.now() - 2 * 3_600_000);
    try {
      for (const [o, { auth, brandId, channels }] of orgs.entries())
        for (let i = 0; i < 12; i++) {
          const withLimit = i % 3 !== 0;
          const text = `stale post ${o}-${i}${withLimit ? ' (limit)' : ''}`;
          const r = await ctx.app.inject({
            method: 'POST',
            url: '/v1/publish/jobs',
            headers: auth,
            payload: {
              plan: {
                brandId,
                text,
                targets: channels.map((c) => ({ platform: 'facebook_page', channelAccountId: c })),
                ...(withLimit ? { maxLatenessMinutes: 60 } : {}),
              },
              dryRun: false,
              enqueue: true,
            },
          });
          assert.equal(r.statusCode, 201, r.body);
          for (const target of r.json().targets) (withLimit ? limited : unlimited).add(target.postTargetId);
        }
    } finally {
      ctx.clock.set(Date.now());
    }
    const all = [...limited, ...unlimited];
    const db = ctx.database.db;
    const states = async () =>
      db.selectFrom('publish_targets').select(['id', 'state', 'provider_post_id']).where('id', 'in', all).execute();
    // a worker starts, is killed mid-way, and another one takes over
    const first = startWorker();
    await waitFor('some settled', async () => (await states()).filter((r) => r.state !== 'queued').length >= all.length / 4, 90_000, 50);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    t.diagnostic(`killed after ${meta.ledger.posts.length - before} posts at ${Date.now() - t0} ms`);
    startWorker();
    const settled = await waitFor(
      'every target settled',
      async () => {
        await sweep();
        const rows = await states();
        return rows.every((r) => ['published', 'missed', 'failed', 'needs_attention'].includes(r.state)) ? rows : null;
      },
      90_000,
      500,
    );
    const byId = new Map(settled.map((r) => [r.id, r.state]));
    for (const id of limited) assert.equal(byId.get(id), 'missed', `target ${id} with a limit of 60 minutes, due 2 hours ago`);
    for (const id of unlimited) assert.equal(byId.get(id), 'published', `target ${id} without a limit`);
    const posts = meta.ledger.posts.slice(before);
    assert.equal(posts.filter((p) => p.text.endsWith('(limit)')).length, 0, 'nothing stale was published');
    assert.equal(posts.length, unlimited.size, 'each target without a limit published once');
    const missedEvents = await db.selectFrom('events').select('id').where('type', '=', 'publish_target.missed').execute();
    assert.equal(missedEvents.length, limited.size);
    t.diagnostic(`settled at ${Date.now() - t0} ms: ${limited.size} missed, ${unlimited.size} published`);
  });
});
