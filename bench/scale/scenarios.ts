/**
 * What bench:scale measures on each data set: the read routes a dashboard and an integrator hit most
 * (through HTTP, in process) and the worker's scans (the domain functions its jobs call). Each scenario
 * is one operation; `run(i)` is called for the i-th sample.
 */
import type pg from 'pg';
import { PublishClaims } from '../../src/modules/publishing/publish-claim.js';
import type { TestContext } from '../../test/support/harness.js';
import type { Dataset } from './datasets.js';

export interface Scenario {
  name: string;
  /** a page of 100 is held to the read target but not to the ratio: the sets fill it with different row counts */
  kind: 'read route' | 'page of 100' | 'worker';
  /** one operation; throws on an unexpected answer */
  run(i: number): Promise<void>;
}

const DAY = 86_400_000;

/** Ids the scenarios pick from, read once from the seeded database. */
interface Fixtures {
  brandId: string;
  channelIds: string[];
  productIds: string[];
  jobIds: string[];
  endpointId: string;
  dueTargets: Array<{ id: string; version: number }>;
}

async function fixtures(client: pg.ClientBase, orgId: string): Promise<Fixtures> {
  const brand = await client.query(
    `select b.id from brands b join channel_accounts c on c.brand_id = b.id where b.organization_id = $1 group by b.id having count(*) = 4 order by b.id limit 1`,
    [orgId],
  );
  const brandId = brand.rows[0].id as string;
  const channels = await client.query(`select id from channel_accounts where organization_id = $1 and brand_id = $2 order by id`, [
    orgId,
    brandId,
  ]);
  const products = await client.query(`select id from brand_products where organization_id = $1 and brand_id = $2 order by id`, [
    orgId,
    brandId,
  ]);
  const jobs = await client.query(
    `select id from publish_jobs where organization_id = $1 and id > (select min(id) from publish_jobs where organization_id = $1) order by id limit 200`,
    [orgId],
  );
  // spread over the year: every n-th job by id
  const jobIds = (
    await client.query(
      `select id from (select id, row_number() over (order by id) as n, count(*) over () as c from publish_jobs where organization_id = $1) s where n % greatest(1, c / 200) = 0`,
      [orgId],
    )
  ).rows.map((r) => r.id as string);
  const endpoint = await client.query(`select id from webhook_endpoints where organization_id = $1 order by id limit 1`, [orgId]);
  const due = await client.query(
    `select id, version from publish_targets where organization_id = $1 and state = 'scheduled' order by next_attempt_at limit 200`,
    [orgId],
  );
  return {
    brandId,
    channelIds: channels.rows.map((r) => r.id),
    productIds: products.rows.map((r) => r.id),
    jobIds: jobIds.length > 0 ? jobIds : jobs.rows.map((r) => r.id),
    endpointId: endpoint.rows[0].id,
    dueTargets: due.rows,
  };
}

export async function scenarios(ctx: TestContext, client: pg.ClientBase, ds: Dataset, auth: Record<string, string>): Promise<Scenario[]> {
  const f = await fixtures(client, ds.organizationId);
  const now = ds.seededAt.getTime();
  const iso = (ms: number) => new Date(ms).toISOString();
  const get = async (url: string) => {
    const res = await ctx.app.inject({ method: 'GET', url, headers: auth });
    if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.json();
  };
  const q = (params: Record<string, string | number>) =>
    new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)] as [string, string])).toString();
  // a week and a month well inside the seeded year (two months back), as the calendar asks for them
  const weekFrom = now - 60 * DAY;
  const monthFrom = now - 90 * DAY;

  // the media library walked page after page; a sample is one page fetched from deep in the walk
  let mediaCursor: string | null = null;
  let mediaPage = 0;

  const list: Scenario[] = [
    {
      name: 'GET /v1/publish/jobs ?status=published&from&to (a month)',
      kind: 'read route',
      run: async () => {
        await get(`/v1/publish/jobs?${q({ status: 'published', from: iso(monthFrom), to: iso(monthFrom + 30 * DAY), limit: 50 })}`);
      },
    },
    {
      name: 'GET /v1/publish/jobs ?status=failed (newest page)',
      kind: 'read route',
      run: async () => {
        await get(`/v1/publish/jobs?${q({ status: 'failed', limit: 50 })}`);
      },
    },
    {
      // a page both sets fill (the small set's brand has about 7 jobs a week, the large set's about 30)
      name: 'calendar week: GET /v1/publish/jobs ?brandId&from&to',
      kind: 'read route',
      run: async (i) => {
        const from = weekFrom + (i % 4) * 7 * DAY;
        await get(`/v1/publish/jobs?${q({ brandId: f.brandId, from: iso(from), to: iso(from + 7 * DAY), limit: 5 })}`);
      },
    },
    {
      // a page both sets fill: the small set's brand has 27 jobs in the month, the large set's 132, so a page
      // of 100 would compare 27 jobs with 100: the page's own rows, not the history (the next row)
      name: 'calendar month: GET /v1/publish/jobs ?brandId&from&to',
      kind: 'read route',
      run: async () => {
        await get(`/v1/publish/jobs?${q({ brandId: f.brandId, from: iso(monthFrom), to: iso(monthFrom + 31 * DAY), limit: 25 })}`);
      },
    },
    {
      // the calendar's full page: its cost is its rows (100 jobs and their targets on the large set)
      name: 'calendar month, a page of 100: GET /v1/publish/jobs ?brandId&from&to',
      kind: 'page of 100',
      run: async () => {
        await get(`/v1/publish/jobs?${q({ brandId: f.brandId, from: iso(monthFrom), to: iso(monthFrom + 31 * DAY), limit: 100 })}`);
      },
    },
    {
      name: 'GET /v1/publish/jobs/:id (job with its targets)',
      kind: 'read route',
      run: async (i) => {
        await get(`/v1/publish/jobs/${f.jobIds[i % f.jobIds.length]}`);
      },
    },
    {
      name: 'GET /v1/social-comments ?status=needs_reply',
      kind: 'read route',
      run: async () => {
        await get(`/v1/social-comments?${q({ status: 'needs_reply', limit: 50 })}`);
      },
    },
    {
      name: 'GET /v1/social-comments ?brandId&status=needs_reply',
      kind: 'read route',
      run: async () => {
        await get(`/v1/social-comments?${q({ brandId: f.brandId, status: 'needs_reply', limit: 50 })}`);
      },
    },
    {
      name: 'GET /v1/analytics/snapshots ?from&to (a week)',
      kind: 'read route',
      run: async () => {
        await get(`/v1/analytics/snapshots?${q({ from: iso(weekFrom), to: iso(weekFrom + 7 * DAY), limit: 100 })}`);
      },
    },
    {
      // a page both sets fill (the channel's month holds 29 snapshots on the small set, 103 on the large)
      name: 'GET /v1/analytics/snapshots ?channelAccountId&from&to',
      kind: 'read route',
      run: async () => {
        await get(
          `/v1/analytics/snapshots?${q({ channelAccountId: f.channelIds[0]!, from: iso(monthFrom), to: iso(monthFrom + 31 * DAY), limit: 25 })}`,
        );
      },
    },
    {
      name: 'GET /v1/analytics/snapshots ?channelAccountId&from&to, a page of 100',
      kind: 'page of 100',
      run: async () => {
        await get(
          `/v1/analytics/snapshots?${q({ channelAccountId: f.channelIds[0]!, from: iso(monthFrom), to: iso(monthFrom + 31 * DAY), limit: 100 })}`,
        );
      },
    },
    {
      name: 'GET /v1/webhook-endpoints/:id/deliveries',
      kind: 'read route',
      run: async () => {
        await get(`/v1/webhook-endpoints/${f.endpointId}/deliveries?${q({ limit: 50 })}`);
      },
    },
    {
      name: 'GET /v1/webhook-endpoints/:id/deliveries ?status=failed',
      kind: 'read route',
      run: async () => {
        await get(`/v1/webhook-endpoints/${f.endpointId}/deliveries?${q({ status: 'failed', limit: 50 })}`);
      },
    },
    {
      name: 'GET /v1/media (page 20+ of the cursor walk)',
      kind: 'read route',
      run: async () => {
        // walk to page 20 first (unmeasured pages are taken by the warm-up runs), then one page a sample
        do {
          const page = await get(`/v1/media?${q({ limit: 100, ...(mediaCursor ? { cursor: mediaCursor } : {}) })}`);
          mediaCursor = page.nextCursor ?? null;
          mediaPage++;
        } while (mediaPage < 20 && mediaCursor);
      },
    },
    {
      name: 'GET /v1/publish/slots ?brandId&platform (slot finder)',
      kind: 'read route',
      run: async () => {
        await get(`/v1/publish/slots?${q({ brandId: f.brandId, platform: 'x', from: iso(now + DAY) })}`);
      },
    },
    {
      name: 'worker: claim a due target (rolled back)',
      kind: 'worker',
      run: async (i) => {
        const t = f.dueTargets[i % f.dueTargets.length]!;
        const at = new Date(now);
        await ctx.database.db
          .transaction()
          .execute(async (tx) => {
            const claimed = await new PublishClaims(() => tx as never).claim({
              targetId: t.id,
              version: t.version,
              organizationId: ds.organizationId,
              leaseUntil: new Date(now + 60_000),
              now: at,
            });
            if (!claimed) throw new Error(`claim of ${t.id} found nothing`);
            throw new Rollback();
          })
          .catch((e) => {
            if (!(e instanceof Rollback)) throw e;
          });
      },
    },
    {
      name: 'worker: reconciliation sweep',
      kind: 'worker',
      run: async () => {
        await ctx.root.areas.publishing.reconcile.run();
      },
    },
    {
      // a delivery whose sender died is claimed again once its lease ends (webhooks.claim-loop.ts): no
      // reclaim sweep of its own any more, so the sweep is the fan-out of events left unfanned
      name: 'worker: webhook sweep (fan-out)',
      kind: 'worker',
      run: async () => {
        await ctx.root.areas.webhooks.fanout.sweep();
      },
    },
  ];

  // batch preview: 1,000 items x 4 targets on brand 1's channels (10,000 scheduled posts over the year ahead)
  const channels = await client.query(`select id, platform from channel_accounts where brand_id = $1 order by id`, [f.brandId]);
  const targets = channels.rows.map((r) => ({ platform: r.platform, channelAccountId: r.id }));
  const body = {
    brandId: f.brandId,
    from: iso(now + DAY),
    policy: {
      id: 'bench',
      horizonDays: 14,
      slots: [
        { id: 'early', localTime: '07:30', timezone: 'Europe/Berlin', minGapMinutes: 30, productCooldownMinutes: 600 },
        { id: 'morning', localTime: '09:00', timezone: 'Europe/Berlin', minGapMinutes: 30, productCooldownMinutes: 600 },
        { id: 'noon', localTime: '12:15', timezone: 'Europe/Berlin', minGapMinutes: 30, productCooldownMinutes: 600 },
        { id: 'afternoon', localTime: '15:00', timezone: 'America/New_York', minGapMinutes: 30, productCooldownMinutes: 600 },
        { id: 'evening', localTime: '18:30', timezone: 'America/New_York', minGapMinutes: 30, productCooldownMinutes: 600 },
        { id: 'night', localTime: '21:00', timezone: 'America/New_York', minGapMinutes: 30, productCooldownMinutes: 600 },
      ],
    },
    items: Array.from({ length: 1000 }, (_, i) => ({
      clientAssetId: `scale-${i}`,
      productId: f.productIds[i % f.productIds.length]!,
      text: `Scale post ${i} about product ${i % f.productIds.length}`,
      targets,
    })),
  };
  list.push({
    name: 'POST /v1/publish/batches/preview (1,000 items x 4)',
    kind: 'worker',
    run: async () => {
      const res = await ctx.app.inject({ method: 'POST', url: '/v1/publish/batches/preview', headers: auth, payload: body });
      if (res.statusCode !== 200) throw new Error(`preview: ${res.statusCode} ${res.body.slice(0, 300)}`);
    },
  });
  return list;
}

class Rollback extends Error {}
