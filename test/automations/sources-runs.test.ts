/** Automation sources CRUD, the write gate, runs and every transition pair of the run table, over HTTP. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';

const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
const ALLOWED = new Set(['queued>running', 'queued>cancelled', 'running>succeeded', 'running>failed', 'running>cancelled']);

describe('automation sources and runs', () => {
  let ctx: TestContext;
  let auth: Record<string, string>;
  let orgId: string;
  let brandId: string;
  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers = auth) => {
    const r = await ctx.app.inject({ method, url, payload: payload as object, headers });
    return { status: r.statusCode, body: r.body ? JSON.parse(r.body) : null };
  };
  const rss = (extra: Record<string, unknown> = {}) => ({
    brandId,
    kind: 'rss_feed',
    name: 'Blog',
    config: { feedUrl: 'https://blog.example.com/feed.xml', mode: 'draft', maxItemsPerRun: 3 },
    ...extra,
  });

  before(async () => {
    ctx = await createTestContext({
      env: { SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true', SERVICE_INTERNAL_TOKEN: 'internal-token-0123456789' },
    });
    const org = await ctx.createOrganization();
    auth = org.auth;
    orgId = org.organizationId;
    brandId = (await ctx.createBrand(orgId, 'Shop')).brandId;
  });
  after(() => ctx.close());

  it('creates, lists with filters and cursor, updates and soft-deletes sources', async () => {
    const a = await call('POST', '/v1/automation-sources', rss());
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.match(a.body.automationSourceId, /^asrc_/);
    assert.equal(a.body.enabled, true);
    assert.equal(a.body.schedule, null);
    assert.equal(a.body.lastRunAt, null);
    assert.deepEqual(a.body.config, {
      feedUrl: 'https://blog.example.com/feed.xml',
      mode: 'draft',
      maxItemsPerRun: 3,
      backfill: 'none',
      textTemplate: '{{title}} {{link}}',
    });
    const b = await call('POST', '/v1/automation-sources', {
      brandId,
      kind: 'product_rotation',
      name: 'Catalog',
      config: { itemsPerRun: 2, textTemplate: 'Meet {{title}}' },
      schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' },
    });
    assert.equal(b.status, 201, JSON.stringify(b.body));
    const c = await call('POST', '/v1/automation-sources', { brandId, kind: 'external', name: 'Agent', enabled: false });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.deepEqual(c.body.config, {});

    const page1 = await call('GET', '/v1/automation-sources?limit=2');
    assert.equal(page1.status, 200);
    assert.equal(page1.body.data.length, 2);
    const page2 = await call('GET', `/v1/automation-sources?limit=2&cursor=${page1.body.nextCursor}`);
    assert.deepEqual(
      page2.body.data.map((s: { name: string }) => s.name),
      ['Agent'],
    );
    assert.equal(page2.body.nextCursor, null);
    const rssOnly = await call('GET', '/v1/automation-sources?kind=rss_feed');
    assert.deepEqual(
      rssOnly.body.data.map((s: { name: string }) => s.name),
      ['Blog'],
    );
    const disabled = await call('GET', '/v1/automation-sources?enabled=false');
    assert.deepEqual(
      disabled.body.data.map((s: { name: string }) => s.name),
      ['Agent'],
    );
    assert.equal((await call('GET', `/v1/automation-sources?kind=external&cursor=${page1.body.nextCursor}`)).status, 400);

    const patched = await call('PATCH', `/v1/automation-sources/${a.body.automationSourceId}`, {
      name: 'Blog feed',
      config: { maxItemsPerRun: 10, backfill: 'latest:5' },
      schedule: { cron: '*/30 * * * *', timezone: 'America/New_York' },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.name, 'Blog feed');
    assert.equal(patched.body.config.maxItemsPerRun, 10);
    assert.equal(patched.body.config.backfill, 'latest:5');
    assert.equal(patched.body.config.feedUrl, 'https://blog.example.com/feed.xml');
    assert.deepEqual(patched.body.schedule, { cron: '*/30 * * * *', timezone: 'America/New_York' });

    const badPatch = await call('PATCH', `/v1/automation-sources/${a.body.automationSourceId}`, { config: { mode: 'later' } });
    assert.equal(badPatch.status, 400);
    assert.equal(badPatch.body.error, 'invalid_public_automation_source_update_request');

    const del = await call('DELETE', `/v1/automation-sources/${a.body.automationSourceId}`);
    assert.equal(del.status, 204);
    assert.equal((await call('DELETE', `/v1/automation-sources/${a.body.automationSourceId}`)).body.error, 'automation_source_not_found');
    assert.equal((await call('PATCH', `/v1/automation-sources/${a.body.automationSourceId}`, { name: 'x' })).status, 404);
    const after = await call('GET', '/v1/automation-sources?kind=rss_feed');
    assert.equal(after.body.data.length, 0);
    const run = await call('POST', '/v1/automation-runs', { automationSourceId: a.body.automationSourceId });
    assert.equal(run.status, 404);
    assert.equal(run.body.error, 'automation_source_not_runnable');
  });

  it('validates config per kind, the schedule and ids', async () => {
    const cases: Array<[unknown, string]> = [
      [rss({ config: { feedUrl: 'ftp://x.example/feed' } }), 'feed URL scheme'],
      [rss({ config: { feedUrl: 'https://x.example/feed', mode: 'now' } }), 'mode'],
      [rss({ config: { feedUrl: 'https://x.example/feed', backfill: 'latest:0' } }), 'backfill'],
      [rss({ config: { feedUrl: 'https://x.example/feed', itemsPerRun: 3 } }), 'a key of another kind'],
      [{ brandId, kind: 'product_rotation', name: 'P', config: { itemsPerRun: 2 } }, 'missing template'],
      [{ brandId, kind: 'webhook', name: 'W', config: {} }, 'unknown kind'],
      [rss({ schedule: { cron: 'not a cron', timezone: 'UTC' } }), 'cron'],
      [rss({ schedule: { cron: '0 9 * * *', timezone: 'Mars/Olympus' } }), 'timezone'],
    ];
    for (const [body, what] of cases) {
      const r = await call('POST', '/v1/automation-sources', body);
      assert.equal(r.status, 400, what);
      assert.equal(r.body.error, 'invalid_public_automation_source_create_request', what);
    }
    assert.equal((await call('POST', '/v1/automation-sources', rss({ brandId: 'brd_unknown' }))).body.error, 'brand_not_found');
    const badId = await call('PATCH', '/v1/automation-sources/nope', { name: 'x' });
    assert.equal(badId.status, 400);
    assert.equal((await call('POST', '/v1/automation-runs/arun_x/status', { status: 'running' })).status, 400);
  });

  it('queues runs, refuses disabled sources, and moves runs only along the table', async () => {
    const src = (await call('POST', '/v1/automation-sources', { brandId, kind: 'external', name: 'Runner' })).body;
    const off = (await call('POST', '/v1/automation-sources', { brandId, kind: 'external', name: 'Off', enabled: false })).body;
    assert.equal(
      (await call('POST', '/v1/automation-runs', { automationSourceId: off.automationSourceId })).body.error,
      'automation_source_not_runnable',
    );
    assert.equal((await call('POST', '/v1/automation-runs', { automationSourceId: 'asrc_missing' })).status, 404);
    assert.equal(
      (await call('POST', '/v1/automation-runs/arun_01JAAAAAAAAAAAAAAAAAAAAAAA/status', { status: 'running' })).body.error,
      'automation_run_not_found',
    );

    // a run in a given status: create, then walk the shortest allowed path
    const runIn = async (status: (typeof STATUSES)[number]) => {
      const r = await call('POST', '/v1/automation-runs', { automationSourceId: src.automationSourceId, trigger: 'api', dryRun: false });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.status, 'queued');
      const id = r.body.automationRunId as string;
      const path = {
        queued: [],
        running: ['running'],
        succeeded: ['running', 'succeeded'],
        failed: ['running', 'failed'],
        cancelled: ['cancelled'],
      }[status];
      for (const s of path) assert.equal((await call('POST', `/v1/automation-runs/${id}/status`, { status: s })).status, 200);
      return id;
    };
    for (const from of STATUSES) {
      // queued is never reachable: 409 like every other unreachable state, not a validation error
      for (const to of STATUSES) {
        const id = await runIn(from);
        const r = await call('POST', `/v1/automation-runs/${id}/status`, {
          status: to,
          ...(to === 'failed' ? { error: { class: 'agent_error', message: 'upstream refused' } } : {}),
          ...(to === 'succeeded' ? { output: { publishJobIds: ['job_1'], itemsSeen: 3, itemsCreated: 1 } } : {}),
        });
        if (ALLOWED.has(`${from}>${to}`)) {
          assert.equal(r.status, 200, `${from} -> ${to}: ${JSON.stringify(r.body)}`);
          assert.equal(r.body.status, to);
          if (to === 'running') assert.ok(r.body.startedAt);
          if (to !== 'running') assert.ok(r.body.finishedAt);
          if (to === 'failed') assert.deepEqual(r.body.error, { class: 'agent_error', message: 'upstream refused' });
          if (to === 'succeeded')
            assert.deepEqual(r.body.output, { publishJobIds: ['job_1'], publishBatchIds: [], itemsSeen: 3, itemsCreated: 1 });
        } else {
          assert.equal(r.status, 409, `${from} -> ${to}`);
          assert.equal(r.body.error, 'automation_run_invalid_transition');
        }
      }
    }
    assert.equal((await call('POST', '/v1/automation-runs', { automationSourceId: src.automationSourceId, trigger: 'later' })).status, 400);
    // dryRun defaults to true: by default a run creates nothing
    const dflt = await call('POST', '/v1/automation-runs', { automationSourceId: src.automationSourceId });
    assert.equal(dflt.status, 201);
    assert.equal(dflt.body.dryRun, true);
    // and stores nothing: its id names no run
    assert.equal(dflt.body.status, 'queued');
    const dryStatus = await call('POST', `/v1/automation-runs/${dflt.body.automationRunId}/status`, { status: 'running' });
    assert.equal(dryStatus.status, 404);
    assert.equal(dryStatus.body.error, 'automation_run_not_found');
    assert.equal(
      (await call('POST', '/v1/automation-runs', { automationSourceId: src.automationSourceId, dryRun: false })).body.dryRun,
      false,
    );
    // malformed ids are refused as client errors, never 500
    for (const [method, path, body] of [
      ['POST', '/v1/automation-runs/nope/status', { status: 'running' }],
      ['PATCH', '/v1/automation-sources/nope', { enabled: false }],
      ['DELETE', '/v1/automation-sources/nope', undefined],
      ['POST', '/v1/automation-runs', { automationSourceId: "asrc_'; drop" }],
    ] as const) {
      const r = await call(method, path, body);
      assert.ok(r.status === 400 || r.status === 404, `${method} ${path}: ${r.status}`);
      assert.equal(typeof r.body.error, 'string');
    }

    const runs = await call('GET', `/v1/automation-runs?automationSourceId=${src.automationSourceId}&status=failed`);
    assert.equal(runs.status, 200);
    assert.ok(runs.body.data.length >= 1);
    assert.ok(runs.body.data.every((r: { status: string }) => r.status === 'failed'));
    const events = await ctx.database.db
      .selectFrom('events')
      .select(['type'])
      .where('organization_id', '=', orgId)
      .where('type', 'like', 'automation_run.%')
      .execute();
    const all = (await call('GET', `/v1/automation-runs?automationSourceId=${src.automationSourceId}&limit=100`)).body.data as Array<{
      status: string;
    }>;
    // 25 moves tried above, plus the one real run (the dry run is not stored)
    assert.equal(all.length, 26);
    // one event per run that ended in success or failure, none for cancelled runs
    assert.equal(events.filter((e) => e.type === 'automation_run.failed').length, all.filter((r) => r.status === 'failed').length);
    assert.equal(events.filter((e) => e.type === 'automation_run.succeeded').length, all.filter((r) => r.status === 'succeeded').length);
    const sources = await call('GET', '/v1/automation-sources?kind=external&enabled=true');
    assert.ok(sources.body.data.find((s: { name: string; lastRunAt: string | null }) => s.name === 'Runner')?.lastRunAt);
  });

  it('refuses writes with the gate off and requires the automation scopes', async () => {
    const gated = await createTestContext({
      env: { SERVICE_AUTOMATION_WRITE_ENABLED: 'false', SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true' },
    });
    try {
      const org = await gated.createOrganization();
      const brand = await gated.createBrand(org.organizationId, 'B');
      const r = await gated.app.inject({
        method: 'POST',
        url: '/v1/automation-sources',
        headers: org.auth,
        payload: { brandId: brand.brandId, kind: 'external', name: 'x' },
      });
      assert.equal(r.statusCode, 403);
      assert.equal(r.json().error, 'automation_write_disabled');
      assert.equal((await gated.app.inject({ method: 'GET', url: '/v1/automation-sources', headers: org.auth })).statusCode, 200);
    } finally {
      await gated.close();
    }
    const reader = await ctx.createOrganization({ scopes: ['automations:read'] });
    assert.equal((await call('GET', '/v1/automation-sources', undefined, reader.auth)).status, 200);
    const w = await call('POST', '/v1/automation-sources', rss(), reader.auth);
    assert.equal(w.status, 401);
    assert.equal(w.body.error, 'public_api_token_forbidden');
  });
});
