/**
 * rss_feed runs through the worker: feeds served on loopback (allowed by the outbound test allow-list),
 * publish jobs created through the publishing service for a Facebook Page on the Meta simulator.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BrandsService } from '../../src/modules/brands/brands.service.js';
import {
  api,
  connectChannel,
  createOrg,
  type Org,
  type PublishingHarness,
  startPublishingHarness,
  waitFor,
} from '../publishing/publishing-harness.js';

const PHOTO = readFileSync(new URL('../publishing/fixtures/photo-640.jpg', import.meta.url));

interface FeedItem {
  guid?: string;
  title: string;
  link?: string;
  date?: string;
  image?: boolean;
}

function rss(origin: string, items: FeedItem[]): string {
  const body = items
    .map(
      (i) => `<item>
  ${i.guid ? `<guid isPermaLink="false">${i.guid}</guid>` : ''}
  <title>${i.title}</title>
  ${i.link ? `<link>${i.link}</link>` : ''}
  <description>&lt;p&gt;About ${i.title}&lt;/p&gt;</description>
  ${i.date ? `<pubDate>${new Date(i.date).toUTCString()}</pubDate>` : ''}
  ${i.image ? `<enclosure url="${origin}/photo.jpg" type="image/jpeg" length="${PHOTO.length}"/>` : ''}
</item>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Blog</title><link>${origin}</link><description>d</description>${body}</channel></rss>`;
}

function atom(items: Array<{ id: string; title: string; link: string; updated: string }>): string {
  return `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>News</title><id>urn:news</id><updated>2030-01-01T00:00:00Z</updated>${items
    .map(
      (i) =>
        `<entry><id>${i.id}</id><title>${i.title}</title><link rel="alternate" href="${i.link}"/><updated>${i.updated}</updated><summary>Sum ${i.title}</summary></entry>`,
    )
    .join('')}</feed>`;
}

describe('rss_feed automation runs', () => {
  let h: PublishingHarness;
  let org: Org;
  let fb: { channelAccountId: string };
  let server: Server;
  let origin: string;
  const feeds = new Map<string, { body: string; etag?: string }>();
  const hits: Array<{ path: string; ifNoneMatch?: string; status: number }> = [];

  before(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      const record = (status: number) => hits.push({ path, ifNoneMatch: req.headers['if-none-match'] as string | undefined, status });
      if (path === '/photo.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(PHOTO);
      if (path === '/slow') {
        record(200);
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.write('<?xml version="1.0"?><rss version="2.0"><channel>');
        const timer = setTimeout(() => res.end('</channel></rss>'), 20_000);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      if (path === '/redirect') {
        record(302);
        return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      }
      const feed = feeds.get(path);
      if (!feed) return res.writeHead(404).end();
      if (feed.etag && req.headers['if-none-match'] === feed.etag) {
        record(304);
        return res.writeHead(304, { etag: feed.etag }).end();
      }
      record(200);
      res.writeHead(200, { 'content-type': 'application/rss+xml', ...(feed.etag ? { etag: feed.etag } : {}) }).end(feed.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    h = await startPublishingHarness({
      env: {
        SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32',
        SERVICE_AUTOMATION_FEED_MAX_BYTES: '20000',
        SERVICE_AUTOMATION_FEED_TIMEOUT_MS: '3000', // generous: a loaded CI machine must not time out the ordinary feeds
      },
    });
    org = await createOrg(h, 'Feeds');
    fb = await connectChannel(h, org, 'facebook_page');
    await h.ctx.startWorker();
  });
  after(async () => {
    await h.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const createSource = async (feedPath: string, config: Record<string, unknown> = {}) => {
    const r = await api(h, org, 'POST', '/v1/automation-sources', {
      brandId: org.brandId,
      kind: 'rss_feed',
      name: feedPath,
      config: {
        feedUrl: `${origin}${feedPath}`,
        targets: [{ platform: 'facebook_page', channelAccountId: fb.channelAccountId }],
        textTemplate: '{{title}} {{link}}',
        mode: 'draft',
        maxItemsPerRun: 5,
        ...config,
      },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.automationSourceId as string;
  };
  const run = async (sourceId: string, extra: Record<string, unknown> = {}) => {
    const r = await api(h, org, 'POST', '/v1/automation-runs', { automationSourceId: sourceId, dryRun: false, ...extra });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.status, 'queued');
    return waitFor('run to finish', async () => {
      const list = await api(h, org, 'GET', `/v1/automation-runs?automationSourceId=${sourceId}`);
      const found = list.body.data.find((x: { automationRunId: string }) => x.automationRunId === r.body.automationRunId);
      return found && ['succeeded', 'failed'].includes(found.status) ? found : null;
    });
  };
  const jobCount = async () =>
    Number(
      (await h.ctx.database.db
        .selectFrom('publish_jobs')
        .select((e) => e.fn.countAll().as('n'))
        .executeTakeFirst())!.n,
    );

  it('backfills the latest N, remembers items forever, answers conditional GETs and keeps order oldest first', async () => {
    feeds.set('/blog.xml', {
      etag: '"v1"',
      body: rss(origin, [
        { guid: 'p3', title: 'Third', link: 'https://blog.example/3', date: '2026-03-03T10:00:00Z', image: true },
        { guid: 'p2', title: 'Second', link: 'https://blog.example/2', date: '2026-03-02T10:00:00Z' },
        { guid: 'p1', title: 'First', link: 'https://blog.example/1', date: '2026-03-01T10:00:00Z' },
      ]),
    });
    const sourceId = await createSource('/blog.xml', { backfill: 'latest:2' });
    const first = await run(sourceId);
    assert.equal(first.status, 'succeeded', JSON.stringify(first));
    assert.equal(first.output.itemsSeen, 3);
    assert.equal(first.output.itemsCreated, 2);
    const jobs = await Promise.all(first.output.publishJobIds.map((id: string) => api(h, org, 'GET', `/v1/publish/jobs/${id}`)));
    assert.deepEqual(
      jobs.map((j) => j.body.text),
      ['Second https://blog.example/2', 'Third https://blog.example/3'],
    );
    assert.ok(jobs.every((j) => j.body.status === 'draft'));
    assert.equal(jobs[1]!.body.media.length, 1, 'the enclosure image is imported into the media library');
    assert.equal(jobs[0]!.body.media.length, 0);

    const second = await run(sourceId);
    assert.equal(second.status, 'succeeded');
    assert.equal(second.output.itemsCreated, 0);
    assert.deepEqual(hits.filter((x) => x.path === '/blog.xml').at(-1), { path: '/blog.xml', ifNoneMatch: '"v1"', status: 304 });

    // new items (one without a date or guid) and no validators: only the new ones are posted
    feeds.set('/blog.xml', {
      body: rss(origin, [
        { title: 'Undated', link: 'https://blog.example/u' },
        { guid: 'p4', title: 'Fourth', link: 'https://blog.example/4', date: '2026-03-04T10:00:00Z' },
        { guid: 'p3', title: 'Third', link: 'https://blog.example/3', date: '2026-03-03T10:00:00Z', image: true },
        { guid: 'p2', title: 'Second', link: 'https://blog.example/2', date: '2026-03-02T10:00:00Z' },
        { guid: 'p1', title: 'First', link: 'https://blog.example/1', date: '2026-03-01T10:00:00Z' },
      ]),
    });
    const third = await run(sourceId);
    assert.equal(third.output.itemsCreated, 2, JSON.stringify(third.output));
    const texts = await Promise.all(
      third.output.publishJobIds.map(async (id: string) => (await api(h, org, 'GET', `/v1/publish/jobs/${id}`)).body.text),
    );
    assert.deepEqual(texts, ['Fourth https://blog.example/4', 'Undated https://blog.example/u']);
    const fourth = await run(sourceId);
    assert.equal(fourth.output.itemsCreated, 0, 'an item without a date or guid is not posted twice');
    const events = await h.ctx.database.db.selectFrom('events').select('type').where('type', '=', 'automation_run.succeeded').execute();
    assert.ok(events.length >= 4);
  });

  it('reads Atom, caps each run at maxItemsPerRun, and a dry run persists nothing', async () => {
    feeds.set('/news.atom', {
      body: atom(
        [1, 2, 3, 4].map((n) => ({
          id: `urn:n${n}`,
          title: `News ${n}`,
          link: `https://news.example/${n}`,
          updated: `2026-04-0${n}T08:00:00Z`,
        })),
      ),
    });
    const sourceId = await createSource('/news.atom', { backfill: 'latest:4', maxItemsPerRun: 3, textTemplate: '{{title}}: {{summary}}' });
    const before = await jobCount();
    // a dry run is answered at once, ended, and stores nothing (no run, no job)
    const dryAnswer = await api(h, org, 'POST', '/v1/automation-runs', { automationSourceId: sourceId, dryRun: true });
    assert.equal(dryAnswer.status, 201, JSON.stringify(dryAnswer.body));
    const dry = dryAnswer.body;
    assert.equal(dry.status, 'succeeded', JSON.stringify(dry));
    assert.equal(dry.dryRun, true);
    assert.equal(dry.output.itemsCreated, 3);
    assert.deepEqual(dry.output.publishJobIds, []);
    assert.equal(await jobCount(), before);
    const stored = await api(h, org, 'GET', `/v1/automation-runs?automationSourceId=${sourceId}`);
    assert.deepEqual(stored.body.data, []);
    const real = await run(sourceId);
    assert.equal(real.output.itemsCreated, 3);
    assert.equal(await jobCount(), before + 3);
    const text = (await api(h, org, 'GET', `/v1/publish/jobs/${real.output.publishJobIds[0]}`)).body.text;
    assert.equal(text, 'News 1: Sum News 1');
    const next = await run(sourceId);
    assert.equal(next.output.itemsCreated, 1, 'the rest comes on the next run');
  });

  it('fails a run on a malformed feed, an oversize feed and a redirect to a refused address, creating nothing', async () => {
    feeds.set('/bad.xml', { body: '<html><body>not a feed' });
    feeds.set('/big.xml', {
      body: rss(
        origin,
        Array.from({ length: 200 }, (_, i) => ({
          guid: `b${i}`,
          title: `Big ${i}`,
          link: `https://big.example/${i}`,
          date: '2026-05-01T00:00:00Z',
        })),
      ),
    });
    const before = await jobCount();
    for (const [path, errorClass] of [
      ['/bad.xml', 'feed_invalid'],
      ['/big.xml', 'feed_too_large'],
      ['/redirect', 'feed_url_refused'],
      ['/slow', 'feed_timeout'],
    ] as const) {
      const sourceId = await createSource(path, { backfill: 'latest:5' });
      const r = await run(sourceId);
      assert.equal(r.status, 'failed', path);
      assert.equal(r.error.class, errorClass, JSON.stringify(r.error));
      assert.ok(r.error.message.length > 0);
      assert.ok(r.finishedAt);
    }
    assert.equal(await jobCount(), before);
    const failed = await h.ctx.database.db.selectFrom('events').select('type').where('type', '=', 'automation_run.failed').execute();
    assert.equal(failed.length, 4);
  });

  it('records an item that fails plan validation in the run output without posting it', async () => {
    feeds.set('/long.xml', {
      body: rss(origin, [{ guid: 'l1', title: 'Mismatch', link: 'https://long.example/1', date: '2026-06-01T00:00:00Z' }]),
    });
    // a Facebook Page channel named as an X target: a blocking plan issue
    const sourceId = await createSource('/long.xml', {
      backfill: 'latest:1',
      targets: [{ platform: 'x', channelAccountId: fb.channelAccountId }],
    });
    const before = await jobCount();
    const r = await run(sourceId);
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(r.output.itemsCreated, 0);
    assert.equal(r.output.items[0].status, 'invalid');
    assert.equal(r.output.items[0].error.class, 'publish_plan_validation_failed');
    assert.equal(await jobCount(), before);
  });

  it('a product_rotation run commits a real publish batch through the batch committer', async () => {
    const brands = new BrandsService(h.ctx.database.db);
    for (const n of ['Rotation A', 'Rotation B', 'Rotation C'])
      await brands.createProduct(
        org.organizationId,
        org.brandId,
        { name: n, productUrl: `https://shop.example/${n.replace(' ', '-')}` },
        new Date(),
      );
    const profile = await h.ctx.app.inject({
      method: 'PUT',
      url: '/v1/publishing-profiles',
      headers: org.auth,
      payload: {
        organizationId: org.organizationId,
        brandId: org.brandId,
        name: 'Rotation profile',
        channels: [{ channelAccountId: fb.channelAccountId, platform: 'facebook_page' }],
      },
    });
    assert.ok(profile.statusCode === 200 || profile.statusCode === 201, profile.body);
    const src = await api(h, org, 'POST', '/v1/automation-sources', {
      brandId: org.brandId,
      kind: 'product_rotation',
      name: 'Catalog',
      config: {
        itemsPerRun: 2,
        profileId: profile.json().profileId,
        textTemplate: 'Meet {{title}} {{link}}',
        batchPolicy: { horizonDays: 7, slots: [{ id: 'ten', localTime: '10:00', minGapMinutes: 60 }] },
      },
    });
    assert.equal(src.status, 201, JSON.stringify(src.body));
    const r = await run(src.body.automationSourceId);
    assert.equal(r.status, 'succeeded', JSON.stringify(r));
    assert.equal(r.output.publishBatchIds.length, 1);
    assert.equal(r.output.publishJobIds.length, 2);
    const batch = await api(h, org, 'GET', `/v1/publish/batches/${r.output.publishBatchIds[0]}`);
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    assert.equal(batch.body.source, 'automation');
    assert.equal(batch.body.itemCount, 2);
    assert.equal(batch.body.status, 'scheduled');

    // the next run continues the rotation where the first stopped instead of starting over
    const next = await run(src.body.automationSourceId);
    assert.equal(next.status, 'succeeded', JSON.stringify(next));
    const titles = async (ids: string[]) =>
      Promise.all(ids.map(async (id) => /Rotation [ABC]/.exec((await api(h, org, 'GET', `/v1/publish/jobs/${id}`)).body.text)?.[0]));
    const firstTitles = await titles(r.output.publishJobIds);
    const nextTitles = await titles(next.output.publishJobIds);
    assert.equal(nextTitles.length, 2);
    assert.deepEqual(
      new Set([...firstTitles, ...nextTitles]),
      new Set(['Rotation A', 'Rotation B', 'Rotation C']),
      JSON.stringify({ firstTitles, nextTitles }),
    );
  });

  it('schedule mode books a free slot per item; publish mode queues the job now', async () => {
    feeds.set('/slots.xml', {
      body: rss(origin, [
        { guid: 's2', title: 'Slot two', link: 'https://slots.example/2', date: '2026-07-02T00:00:00Z' },
        { guid: 's1', title: 'Slot one', link: 'https://slots.example/1', date: '2026-07-01T00:00:00Z' },
      ]),
    });
    const scheduled = await run(await createSource('/slots.xml', { backfill: 'latest:2', mode: 'schedule' }));
    assert.equal(scheduled.status, 'succeeded', JSON.stringify(scheduled));
    assert.equal(scheduled.output.itemsCreated, 2, JSON.stringify(scheduled.output));
    const jobs = await Promise.all(
      scheduled.output.publishJobIds.map(async (id: string) => (await api(h, org, 'GET', `/v1/publish/jobs/${id}`)).body),
    );
    assert.ok(jobs.every((j) => j.status === 'scheduled' && j.scheduledAt));
    assert.notEqual(jobs[0].scheduledAt, jobs[1].scheduledAt, 'each item gets its own slot');

    feeds.set('/now.xml', {
      body: rss(origin, [{ guid: 'n1', title: 'Right now', link: 'https://now.example/1', date: '2026-07-03T00:00:00Z' }]),
    });
    const now = await run(await createSource('/now.xml', { backfill: 'latest:1', mode: 'publish' }));
    const job = (await api(h, org, 'GET', `/v1/publish/jobs/${now.output.publishJobIds[0]}`)).body;
    assert.ok(['queued', 'publishing', 'published'].includes(job.status), job.status);
  });

  it('a run left running by a stopped worker is taken over after its lease, a fresh one is left alone', async () => {
    feeds.set('/resume.xml', {
      body: rss(origin, [{ guid: 'r1', title: 'Resumed', link: 'https://resume.example/1', date: '2026-08-01T00:00:00Z' }]),
    });
    const sourceId = await createSource('/resume.xml', { backfill: 'latest:1' });
    const now = h.ctx.clock.now();
    const insert = async (id: string, startedAt: Date) =>
      h.ctx.database.db
        .insertInto('automation_runs')
        .values({
          id,
          organization_id: org.organizationId,
          source_id: sourceId,
          status: 'running',
          trigger: 'manual',
          dry_run: false,
          tick_key: null,
          started_at: startedAt,
          finished_at: null,
          error: null,
          output: JSON.stringify({ publishJobIds: [], publishBatchIds: [], itemsSeen: 0, itemsCreated: 0 }),
          created_at: startedAt,
          updated_at: startedAt,
        })
        .execute();
    const runner = h.ctx.root.areas.automations.runner;
    await insert('arun_01JZZZZZZZZZZZZZZZZZZZZZZ1', new Date(now.getTime() - 60_000));
    await runner.execute(org.organizationId, 'arun_01JZZZZZZZZZZZZZZZZZZZZZZ1');
    const fresh = await api(h, org, 'GET', `/v1/automation-runs?automationSourceId=${sourceId}`);
    assert.equal(fresh.body.data[0].status, 'running');
    await insert('arun_01JZZZZZZZZZZZZZZZZZZZZZZ2', new Date(now.getTime() - 3_600_000));
    await runner.execute(org.organizationId, 'arun_01JZZZZZZZZZZZZZZZZZZZZZZ2');
    const taken = (await api(h, org, 'GET', `/v1/automation-runs?automationSourceId=${sourceId}&status=succeeded`)).body.data;
    assert.equal(taken.length, 1);
    assert.equal(taken[0].automationRunId, 'arun_01JZZZZZZZZZZZZZZZZZZZZZZ2');
    assert.equal(taken[0].output.itemsCreated, 1);
  });
});
