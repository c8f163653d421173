/**
 * The scheduler: ticks computed in the schedule's time zone (across a DST change), one run per
 * source and tick whoever ticks (the internal route, the worker's clock, two processes at once).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { dueTick, enqueueDueRuns } from '../../src/modules/automations/scheduler.js';
import { createTestContext, REAL_DATABASE_URL, type TestContext } from '../support/harness.js';

const INTERNAL = 'internal-token-0123456789abcdef';
const PRINCIPAL = 'principal-token-0123456789abcdef';

describe('automation scheduler', () => {
  let ctx: TestContext;
  let auth: Record<string, string>;
  let brandId: string;

  before(async () => {
    ctx = await createTestContext({
      env: { SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true', SERVICE_INTERNAL_TOKEN: INTERNAL, SERVICE_PRINCIPAL_TOKEN: PRINCIPAL },
    });
    const org = await ctx.createOrganization();
    auth = org.auth;
    brandId = (await ctx.createBrand(org.organizationId, 'Sched')).brandId;
  });
  after(() => ctx.close());

  const enqueue = async (headers: Record<string, string> = { 'x-service-internal-token': INTERNAL }) => {
    const r = await ctx.app.inject({ method: 'POST', url: '/v1/internal/automations/scheduler/enqueue', headers });
    return { status: r.statusCode, body: r.json() };
  };
  const ticksOf = async (sourceId: string) =>
    (
      await ctx.database.db
        .selectFrom('automation_runs')
        .select(['tick_key', 'trigger', 'status'])
        .where('source_id', '=', sourceId)
        .orderBy('id')
        .execute()
    ).map((r) => {
      assert.equal(r.trigger, 'schedule');
      assert.equal(r.status, 'queued');
      return r.tick_key;
    });
  const createScheduled = async (cron: string, timezone: string, name: string) => {
    const r = await ctx.app.inject({
      method: 'POST',
      url: '/v1/automation-sources',
      headers: auth,
      payload: { brandId, kind: 'external', name, schedule: { cron, timezone } },
    });
    assert.equal(r.statusCode, 201, r.body);
    return r.json().automationSourceId as string;
  };

  it('computes wall-clock ticks in the time zone across the US spring-forward change', () => {
    const schedule = { cron: '0 9 * * *', timezone: 'America/New_York' };
    // 9:00 EST is 14:00Z; after 8 March 2026 9:00 EDT is 13:00Z
    assert.equal(
      dueTick(schedule, new Date('2026-03-06T15:00:00Z'), new Date('2026-03-07T14:00:00Z'))?.toISOString(),
      '2026-03-07T14:00:00.000Z',
    );
    assert.equal(dueTick(schedule, new Date('2026-03-07T14:00:00Z'), new Date('2026-03-08T12:59:59Z')), null);
    assert.equal(
      dueTick(schedule, new Date('2026-03-07T14:00:00Z'), new Date('2026-03-08T13:00:00Z'))?.toISOString(),
      '2026-03-08T13:00:00.000Z',
    );
    // Europe falls back on 25 October 2026: 02:30 happens twice, the run happens once
    const night = { cron: '30 2 * * *', timezone: 'Europe/Berlin' };
    const first = dueTick(night, new Date('2026-10-24T12:00:00Z'), new Date('2026-10-25T03:00:00Z'));
    assert.ok(first);
    assert.equal(dueTick(night, first, new Date('2026-10-25T12:00:00Z')), null);
  });

  it('queues one run per tick through the internal route with an injected clock, missed ticks collapsing to the latest', async () => {
    ctx.clock.set(new Date('2026-03-07T12:00:00Z'));
    const sourceId = await createScheduled('0 9 * * *', 'America/New_York', 'Daily');
    assert.equal((await enqueue()).body.enqueued, 0);
    ctx.clock.set(new Date('2026-03-07T14:00:30Z'));
    const first = await enqueue();
    assert.equal(first.status, 200);
    assert.equal(first.body.enqueued, 1);
    assert.equal((await enqueue()).body.enqueued, 0, 'the same tick never runs twice');
    ctx.clock.set(new Date('2026-03-08T13:00:05Z'));
    assert.equal((await enqueue({ 'x-service-principal-token': PRINCIPAL })).body.enqueued, 1);
    // three days without a tick: one run for the latest due time
    ctx.clock.set(new Date('2026-03-11T20:00:00Z'));
    assert.equal((await enqueue()).body.enqueued, 1);
    assert.deepEqual(await ticksOf(sourceId), ['2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-11T13:00:00.000Z']);
    const runs = await ctx.app.inject({ method: 'GET', url: `/v1/automation-runs?automationSourceId=${sourceId}`, headers: auth });
    assert.ok(runs.json().data.every((r: { trigger: string }) => r.trigger === 'schedule'));

    // a disabled source is not ticked
    await ctx.app.inject({ method: 'PATCH', url: `/v1/automation-sources/${sourceId}`, headers: auth, payload: { enabled: false } });
    ctx.clock.set(new Date('2026-03-12T13:00:05Z'));
    assert.equal((await enqueue()).body.enqueued, 0);
    await ctx.app.inject({ method: 'DELETE', url: `/v1/automation-sources/${sourceId}`, headers: auth });
  });

  it('refuses the internal route without a valid internal or principal token', async () => {
    assert.equal((await enqueue({})).status, 401);
    assert.equal((await enqueue({ 'x-service-internal-token': 'wrong' })).status, 403);
    assert.equal((await enqueue({ 'x-service-principal-token': INTERNAL })).status, 403);
    assert.equal((await enqueue({ authorization: auth.authorization! })).status, 401);
  });

  it('gives a tick one run when the worker clock, the route and a second process tick at once', async () => {
    ctx.clock.set(new Date('2026-07-01T08:00:00Z'));
    const sourceId = await createScheduled('*/15 * * * *', 'UTC', 'Quarterly hour');
    const at = new Date('2026-07-01T08:15:10Z');
    ctx.clock.set(at);
    const service = ctx.root.areas.automations.service;
    const tasks: Array<Promise<number>> = [
      enqueueDueRuns(ctx.deps, service).then((ids) => ids.length),
      enqueueDueRuns(ctx.deps, service).then((ids) => ids.length),
      enqueue().then((r) => r.body.enqueued as number),
    ];
    if (REAL_DATABASE_URL) {
      const run = promisify(execFile);
      const url = ctx.config.env.DATABASE_URL!;
      for (let i = 0; i < 2; i++) {
        tasks.push(
          run(process.execPath, ['--import', 'tsx', 'test/automations/fixtures/scheduler-tick.ts', url, at.toISOString()]).then(
            (r) => (JSON.parse(r.stdout) as string[]).length,
          ),
        );
      }
    }
    const counts = await Promise.all(tasks);
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      1,
      `counts ${counts}`,
    );
    assert.deepEqual(await ticksOf(sourceId), ['2026-07-01T08:15:00.000Z']);
  });
});
