/**
 * The service on more than one machine, on this host: two `service-api api` processes behind a round
 * robin load balancer, two `service-api worker` processes, PostgreSQL and Redis. SERVICE_DEPLOY_POSTS
 * posts (the test runs only when it is set, e.g. 400; docs/operations.md) are created through the load
 * balancer and published while one worker is killed with SIGKILL part way; every post lands on the
 * simulator exactly once (none lost, none twice). Redis shares the limits across the processes: an
 * organization's API rate limit is counted across both API processes (it allows the limit once, not
 * once per process), and a webhook endpoint's concurrency limit holds across both workers.
 * Skipped without DATABASE_URL and REDIS_URL (the embedded database admits one process).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Agent, fetch } from 'undici';
import { META_SANDBOX_APP, type RunningMetaSimulator, startMetaSimulator } from '../../src/sandbox/simulators/meta.simulator.js';
import { LiveClock } from '../publishing/publishing-harness.js';
import { addMember, DASHBOARD, signIn } from '../support/auth.js';
import { createTestContext, REAL_DATABASE_URL, REAL_REDIS_URL, type TestClock, type TestContext } from '../support/harness.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../support/round-robin-proxy.js';
import { freePort, serviceArgs } from '../support/service-process.js';
import { metaPageTokens } from '../support/simulators.js';
import { waitFor } from '../support/wait.js';
import { Receivers } from '../webhooks/webhook-receiver.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** posts to publish (two targets, two pages, per job); 10,000 for the figures in docs/operations.md */
const POSTS = Number(process.env.SERVICE_DEPLOY_POSTS ?? 0);
const RATE_LIMIT = 300;
/** jobs per organization: below the rate limit, so the creates are never refused */
const JOBS_PER_ORG = 250;
const ENDPOINT_CONCURRENCY = 2;
const CREATE_CONCURRENCY = 16;
const KEY = Buffer.alloc(32, 11);
/** a process loads the code at start: slow on a loaded machine */
const STARTUP_MS = 300_000;

describe('several API and worker processes behind a load balancer', {
  // four service processes and a few hundred posts take minutes and most of a 2-core host: the suite's
  // two parallel passes would starve; run it on its own with SERVICE_DEPLOY_POSTS (docs/operations.md)
  skip: !(REAL_DATABASE_URL && REAL_REDIS_URL)
    ? 'set DATABASE_URL and REDIS_URL: several processes need PostgreSQL and Redis'
    : POSTS > 0
      ? false
      : 'set SERVICE_DEPLOY_POSTS (e.g. 400) to run the several-process deployment test',
}, () => {
  let meta: RunningMetaSimulator;
  let ctx: TestContext;
  let proxy: RoundRobinProxy;
  let env: Record<string, string>;
  const hooks = new Receivers();
  const children: ChildProcess[] = [];
  const outputs = new Map<ChildProcess, () => string>();
  const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 });

  const spawnRole = (role: 'api' | 'worker', extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, serviceArgs(role), {
      cwd: ROOT,
      env: { ...process.env, ...env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const keep = (c: Buffer) => {
      out = (out + c.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    outputs.set(child, () => out);
    children.push(child);
    return child;
  };
  const startApi = async () => {
    const port = await freePort();
    const child = spawnRole('api', { PORT: String(port), HOST: '127.0.0.1' });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      `api process on ${port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`api exited ${child.exitCode}: ${outputs.get(child)!()}`);
        return (await fetch(`${base}/v1/health/live`).catch(() => null))?.ok;
      },
      STARTUP_MS,
      200,
    );
    return base;
  };
  const startWorker = async () => {
    const child = spawnRole('worker');
    await waitFor(
      'worker heartbeat',
      async () => {
        if (child.exitCode !== null) throw new Error(`worker exited ${child.exitCode}: ${outputs.get(child)!()}`);
        return ctx.database.db.selectFrom('worker_heartbeats').select('pid').where('pid', '=', child.pid!).executeTakeFirst();
      },
      STARTUP_MS,
      200,
    );
    return child;
  };
  const call = async (method: string, url: string, auth: Record<string, string>, body?: unknown) => {
    const r = await fetch(`${proxy.base}${url}`, {
      method,
      dispatcher,
      headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: r.status, body: (await r.json().catch(() => null)) as any };
  };

  before(async () => {
    meta = await startMetaSimulator({ containerDelayMs: 10 });
    await hooks.start();
    const s = meta.state;
    const [page1, page2] = metaPageTokens(s, [s.seed.pageId, s.seed.secondPageId]);
    env = {
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DASHBOARD_ORIGINS: DASHBOARD,
      SERVICE_CHANNEL_TOKEN_ENV_REFS: `PAGE1=${page1},PAGE2=${page2}`,
      SERVICE_FACEBOOK_PAGE_CLIENT_ID: META_SANDBOX_APP.clientId,
      SERVICE_FACEBOOK_PAGE_CLIENT_SECRET: META_SANDBOX_APP.clientSecret,
      SERVICE_FACEBOOK_PAGE_API_BASE_URL: meta.baseUrls.facebook_page.apiBaseUrl,
      SERVICE_FACEBOOK_PAGE_AUTH_BASE_URL: meta.baseUrls.facebook_page.authBaseUrl,
      SERVICE_FACEBOOK_PAGE_UPLOAD_BASE_URL: meta.baseUrls.facebook_page.uploadBaseUrl,
      SERVICE_PUBLISH_LEASE_SECONDS: '2',
      SERVICE_PUBLISH_RECONCILE_GRACE_SECONDS: '1',
      SERVICE_PUBLISH_WORKER_CONCURRENCY: '16',
      SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS: String(RATE_LIMIT),
      SERVICE_PUBLIC_API_RATE_LIMIT_WINDOW_SECONDS: '60',
      SERVICE_WEBHOOK_ENDPOINT_CONCURRENCY: String(ENDPOINT_CONCURRENCY),
      SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32',
    };
    ctx = await createTestContext({ env, clock: new LiveClock() as TestClock, encryptionKey: KEY, checkOpenApi: false });
    env.DATABASE_URL = ctx.config.env.DATABASE_URL!;
    env.REDIS_URL = REAL_REDIS_URL!;
    env.SERVICE_DATA_DIR = ctx.config.dataDir;
    env.SERVICE_ENCRYPTION_KEY = KEY.toString('base64');
    // started side by side: each process loads the code and connects on its own
    const [a, b] = await Promise.all([startApi(), startApi(), startWorker(), startWorker()]);
    proxy = await startRoundRobinProxy([a as string, b as string]);
  });

  after(async () => {
    for (const c of children)
      if (c.exitCode === null && c.signalCode === null) {
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      }
    await proxy?.close();
    await dispatcher.close();
    await ctx?.close();
    await meta?.close();
    await hooks.stop();
  });

  /** an organization with its API key, an admin's dashboard session, a brand and the two pages */
  const organization = async (name: string) => {
    const org = await ctx.createOrganization({ name });
    const admin = await signIn(ctx, (await addMember(ctx, org.organizationId, 'admin')).email);
    const { brandId } = await ctx.createBrand(org.organizationId, `${name} brand`);
    const channels: string[] = [];
    for (const [ref, page] of [
      ['env:PAGE1', meta.state.seed.pageId],
      ['env:PAGE2', meta.state.seed.secondPageId],
    ] as const) {
      const r = await ctx.app.inject({
        method: 'PUT',
        url: '/v1/channel-accounts',
        headers: org.auth,
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
    return { ...org, admin, brandId, channels };
  };

  it('publishes every post exactly once while a worker is killed part way', { timeout: 1_800_000 }, async (t) => {
    const jobs = Math.ceil(POSTS / 2);
    const orgs: Awaited<ReturnType<typeof organization>>[] = [];
    for (let o = 0; o < Math.ceil(jobs / JOBS_PER_ORG); o++) orgs.push(await organization(`Deploy ${o}`));
    // one organization's endpoint receives its events slowly: at most ENDPOINT_CONCURRENCY in flight across both workers
    const slow = hooks.url('/slow', () => new Promise<void>((r) => setTimeout(r, 150)));
    const ep = await call('POST', '/v1/webhook-endpoints', orgs[0]!.auth, { url: slow, eventTypes: [] });
    assert.equal(ep.status, 201, JSON.stringify(ep.body));

    const t0 = Date.now();
    const texts = new Set<string>();
    let made = 0;
    const create = async () => {
      for (;;) {
        const i = made++;
        if (i >= jobs) return;
        const org = orgs[Math.floor(i / JOBS_PER_ORG)]!;
        const text = `deploy post ${i}`;
        const r = await call('POST', '/v1/publish/jobs', org.auth, {
          plan: { brandId: org.brandId, text, targets: org.channels.map((c) => ({ platform: 'facebook_page', channelAccountId: c })) },
          dryRun: false,
          enqueue: true,
        });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        texts.add(text);
      }
    };
    await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, create));
    const createdMs = Date.now() - t0;
    t.diagnostic(`created ${jobs} jobs (${jobs * 2} targets) through the load balancer in ${createdMs} ms`);

    const published = () => meta.ledger.posts.length;
    await waitFor('a quarter published', async () => published() >= POSTS / 4, 600_000, 20);
    const victim = children.find((c) => c.spawnargs.includes('worker'))!;
    victim.kill('SIGKILL');
    await new Promise((r) => victim.once('exit', r));
    const atKill = published();
    t.diagnostic(`killed a worker after ${atKill} posts at ${Date.now() - t0} ms`);

    const db = ctx.database.db;
    const counts = async () => {
      const rows = await db
        .selectFrom('publish_targets')
        .select(['state'])
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .groupBy('state')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    };
    let lastSweep = 0;
    // what the sweeps made of the targets the killed worker left in flight
    const swept = { publishedCount: 0, retriedCount: 0, flaggedCount: 0, lookupsDeferredCount: 0, requeuedCount: 0 };
    const settled = await waitFor(
      'every target settled',
      async () => {
        // the reconciliation sweep of targets the killed worker left in flight (the worker's cron runs it every minute)
        if (Date.now() - lastSweep > 3_000) {
          lastSweep = Date.now();
          for (const { admin } of orgs) {
            const r = await ctx.app.inject({
              method: 'POST',
              url: '/v1/internal/publish-queue/reconcile',
              headers: { cookie: `service_dashboard_session=${admin}`, origin: DASHBOARD },
            });
            assert.equal(r.statusCode, 200, r.body);
            for (const k of Object.keys(swept) as Array<keyof typeof swept>) swept[k] += r.json()[k];
          }
        }
        const c = await counts();
        const open = Object.entries(c).filter(([s]) => !['published', 'failed', 'needs_attention', 'missed'].includes(s));
        return open.length === 0 ? c : null;
      },
      1_200_000,
      500,
    );
    const totalMs = Date.now() - t0;

    const seen = new Map<string, number>();
    for (const p of meta.ledger.posts) seen.set(`${p.accountId} ${p.text}`, (seen.get(`${p.accountId} ${p.text}`) ?? 0) + 1);
    const duplicates = [...seen.values()].filter((n) => n > 1).length;
    let lost = 0;
    for (const text of texts)
      for (const page of [meta.state.seed.pageId, meta.state.seed.secondPageId]) if (!seen.has(`${page} ${text}`)) lost += 1;
    t.diagnostic(
      `posts ${POSTS}: settled in ${totalMs} ms (${((POSTS * 1000) / totalMs).toFixed(1)} posts/s end to end), ` +
        `duplicates ${duplicates}, lost ${lost}, states ${JSON.stringify(settled)}, requests per API process ${JSON.stringify([...proxy.served.values()])}`,
    );
    t.diagnostic(
      `crashed attempts: found on the page ${swept.publishedCount}, never landed and queued again ${swept.retriedCount}, ` +
        `flagged ${swept.flaggedCount}; lookups deferred ${swept.lookupsDeferredCount}; lost worker jobs queued again ${swept.requeuedCount}`,
    );
    if (settled.needs_attention) {
      const flagged = await db
        .selectFrom('publish_targets')
        .select(['text', 'last_error'])
        .where('state', '=', 'needs_attention')
        .limit(5)
        .execute();
      for (const f of flagged) t.diagnostic(`needs_attention: ${f.text}: ${JSON.stringify(f.last_error)}`);
    }
    assert.equal(duplicates, 0, 'no post published twice');
    assert.equal(lost, 0, 'no post lost');
    assert.equal(settled.published, POSTS, `every target published: ${JSON.stringify(settled)}`);
    assert.equal(meta.ledger.posts.length, POSTS);
    for (const n of proxy.served.values()) assert.ok(n > 0, 'both API processes answered');

    // the slow endpoint: every event of its organization delivered, never more than the limit at once
    const events = Number(
      (
        await db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', orgs[0]!.organizationId)
          .executeTakeFirstOrThrow()
      ).n,
    );
    await hooks.waitFor('/slow', events, 600_000);
    t.diagnostic(
      `webhook endpoint: ${events} deliveries, at most ${hooks.maxInFlight.get('/slow')} in flight (limit ${ENDPOINT_CONCURRENCY})`,
    );
    assert.equal(hooks.maxInFlight.get('/slow'), ENDPOINT_CONCURRENCY, 'the limit held across both workers, and was reached');
  });

  it("counts an organization's rate limit across both API processes", { timeout: 120_000 }, async (t) => {
    const org = await ctx.createOrganization({ name: 'Rate limited' });
    // the window is a wall-clock minute: start early in one so the burst stays inside it
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 40_000) await new Promise((r) => setTimeout(r, 60_500 - intoWindow));
    const before = new Map(proxy.served);
    const statuses = await Promise.all(
      Array.from({ length: RATE_LIMIT + 100 }, () => call('GET', '/v1/publish/jobs?limit=1', org.auth).then((r) => r.status)),
    );
    const ok = statuses.filter((s) => s === 200).length;
    const limited = statuses.filter((s) => s === 429).length;
    const perProcess = [...proxy.served].map(([u, n]) => n - (before.get(u) ?? 0));
    t.diagnostic(`${ok} answered, ${limited} refused (429); requests per API process ${JSON.stringify(perProcess)}`);
    for (const n of perProcess) assert.ok(n > RATE_LIMIT / 2, 'the burst was spread over both processes');
    assert.equal(ok, RATE_LIMIT, 'the limit is counted once across both processes, not once per process');
    assert.equal(limited, 100);
  });
});
