/**
 * Claims ahead of the call permits: while a worker's platform calls are in flight, the next targets are
 * claimed and prepared (two per call permit), no more, and each of them is still published exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, connectChannel, createOrg, type Org, type PublishingHarness, startPublishingHarness, waitFor } from './publishing-harness.js';

const CALLS_AT_ONCE = 2;
const AHEAD = 2 * CALLS_AT_ONCE;
const JOBS = 10;
/** how long the platform holds the first calls (under the provider timeout of the harness, 5 s) */
const HOLD_MS = 3000;

describe('claims ahead of the call permits', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };

  before(async () => {
    h = await startPublishingHarness({ env: { SERVICE_PUBLISH_WORKER_CONCURRENCY: String(CALLS_AT_ONCE) } });
    org = await createOrg(h, 'Ahead');
    fb = await connectChannel(h, org, 'facebook_page');
    await h.ctx.startWorker();
  });
  after(() => h.close());

  it('claims the next targets while the calls run, at most two per call permit, and publishes each at most once', async (t) => {
    // the first calls are held by the platform for a while: the permits are all taken meanwhile
    h.meta.failures.inject({ kind: 'timeout', operation: 'publish', times: CALLS_AT_ONCE, delayMs: HOLD_MS });
    // all due at once, a few seconds from now (creating them takes a while on a busy host)
    const scheduleAt = new Date(Date.now() + 8000).toISOString();
    const texts: string[] = [];
    const jobIds: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const text = `ahead ${i} ${Date.now()}`;
      const r = await api(h, org, 'POST', '/v1/publish/jobs', {
        plan: {
          brandId: org.brandId,
          text,
          targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
          scheduleAt,
        },
        dryRun: false,
        enqueue: true,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      texts.push(text);
      jobIds.push(r.body.publishJobId);
    }
    const db = h.ctx.database.db;
    const publishing = async () =>
      (await db.selectFrom('publish_targets').select('id').where('state', '=', 'publishing').where('job_id', 'in', jobIds).execute())
        .length;
    // the held calls and the claims made ahead of them
    await waitFor('the calls held and the claims ahead made', async () => (await publishing()) === CALLS_AT_ONCE + AHEAD, 20_000, 10);
    assert.equal(h.meta.ledger.posts.filter((p) => texts.includes(p.text)).length, 0, 'nothing posted while the calls are held');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await publishing(), CALLS_AT_ONCE + AHEAD, 'no more claimed than the calls and the claims ahead');

    // the held calls may end without an answer (needs_attention: the outcome is unknown, never retried)
    const settled = await waitFor(
      'every target settled',
      async () => {
        const rows = await db
          .selectFrom('publish_targets')
          .select(['id', 'state', 'text', 'attempts'])
          .where('job_id', 'in', jobIds)
          .execute();
        if (process.env.AHEAD_DEBUG)
          t.diagnostic(`${Date.now()} ${rows.map((r) => r.state).join(',')} posts=${h.meta.ledger.posts.length}`);
        return rows.length === JOBS && rows.every((r) => r.state === 'published' || r.state === 'needs_attention') ? rows : null;
      },
      HOLD_MS + 20_000,
      50,
    );
    const published = settled.filter((r) => r.state === 'published');
    assert.ok(published.length >= JOBS - CALLS_AT_ONCE, `${published.length} published`);
    for (const row of settled) {
      const posts = h.meta.ledger.posts.filter((p) => p.text === row.text).length;
      if (row.state === 'published') assert.equal(posts, 1, `${row.text} posted once`);
      else assert.ok(posts <= 1, `${row.text} posted at most once`);
      assert.equal(row.attempts, 1, 'one attempt each');
    }
  });
});
