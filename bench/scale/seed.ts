/**
 * Seeds a bench database with a year of one agency's history, in SQL (`INSERT ... SELECT
 * generate_series`): no rows cross the wire, so the large set takes minutes. Every row is one the
 * service could have written: prefixed ULID ids whose time part is the row's creation time (so keyset
 * pagination by id follows time, as in production), real foreign keys, status mixes and dates spread
 * over the year before `now` (plus a month of scheduled posts after it).
 *
 * Shape at factor 1 (the large set): one big organization with 200 brands, 800 channels, 300,000
 * publish jobs and 1,000,000 targets, 200,000 media items, 1,000,000 comments, 1,000,000 events,
 * 2,000,000 webhook deliveries and 5,000,000 attempts, 100,000 automation items and about 1,000,000
 * analytics snapshots; plus 1,000 small organizations. The small set is factor 0.01 (about 10,000 rows
 * per big table), same shape.
 */
import type pg from 'pg';

export interface SeedShape {
  factor: number;
  brands: number;
  jobs: number;
  media: number;
  comments: number;
  events: number;
  automationItems: number;
  smallOrganizations: number;
}

export function shapeFor(factor: number): SeedShape {
  const n = (x: number, min: number) => Math.max(min, Math.round(x * factor));
  return {
    factor,
    brands: n(200, 10),
    jobs: n(300_000, 1_000),
    media: n(200_000, 1_000),
    comments: n(1_000_000, 1_000),
    events: n(1_000_000, 1_000),
    automationItems: n(100_000, 1_000),
    smallOrganizations: n(1_000, 10),
  };
}

export const SEEDED_TABLES = [
  'publish_jobs',
  'publish_targets',
  'media_library_items',
  'social_comments',
  'analytics_snapshots',
  'events',
  'webhook_deliveries',
  'webhook_attempts',
  'automation_runs',
  'automation_seen_items',
];

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** SQL for `len` Crockford base32 digits of a bigint expression (inlined by the planner: no call per row). */
function b32(expr: string, len: number): string {
  const parts: string[] = [];
  for (let i = len - 1; i >= 0; i--) parts.push(`substr('${ALPHABET}', (((${expr}) >> ${5 * i}) & 31)::int + 1, 1)`);
  return parts.join(' || ');
}

/** A prefixed ULID: 48-bit milliseconds of `ts` (10 digits), then 80 bits (here: the 65-bit sequence `n`, zero-padded). */
const ulidFn = `create or replace function pg_temp.bench_id(prefix text, ts timestamptz, n bigint) returns text
  language sql stable as $$ select prefix || '_' || ${b32('(extract(epoch from ts) * 1000)::bigint', 10)} || '000' || ${b32('n', 13)} $$`;

/** Seeds the organization `orgId` (its owner `userId` exists) and the small organizations. `now` anchors the year. */
export async function seed(client: pg.ClientBase, orgId: string, shape: SeedShape, now: Date, log: (s: string) => void) {
  const step = async (label: string, text: string, params: unknown[] = []) => {
    const t0 = performance.now();
    const r = await client.query(text, params);
    log(`  ${label}: ${r.rowCount ?? 0} rows, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  await client.query('set synchronous_commit = off');
  // bulk load: the secondary indexes of the big tables are dropped and built again at the end (one sort
  // each instead of millions of inserts into them), and the foreign key triggers are off for this
  // session (every key below is taken from the rows it points at)
  await client.query(
    `create temp table bench_saved_indexes as
    select i.indexname, i.indexdef from pg_indexes i
    where i.schemaname = 'public' and i.tablename = any($1::text[])
      and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`,
    [SEEDED_TABLES],
  );
  for (const r of (await client.query('select indexname from bench_saved_indexes')).rows) await client.query(`drop index ${r.indexname}`);
  await client.query(`set session_replication_role = replica`);
  await client.query(ulidFn);
  await client.query(`create temp table bench_anchor as select $1::timestamptz as now`, [now]);
  const yearStart = `((select now from bench_anchor) - interval '335 days')`;
  // the job's creation time: job i of N evenly over the 365 days before `now + 30 days`
  const jobAt = (i: string, total: number) => `(${yearStart} + (${i}::float8 / ${total}) * interval '365 days')`;
  const o = `'${orgId}'`;

  await step(
    'brands',
    `insert into brands (id, organization_id, name, slug, timezone, created_at, updated_at)
     select pg_temp.bench_id('brd', ${yearStart} - interval '1 day', b), ${o}, 'Brand ' || b, 'brand-' || b,
       (array['Europe/Berlin','America/New_York','UTC','Asia/Tokyo'])[b % 4 + 1], ${yearStart} - interval '1 day', ${yearStart} - interval '1 day'
     from generate_series(1, ${shape.brands}) b`,
  );
  await step(
    'products (10 per brand)',
    `insert into brand_products (id, organization_id, brand_id, name, slug, product_url, created_at, updated_at)
     select pg_temp.bench_id('prd', ${yearStart} - interval '1 day', b * 100 + p), ${o}, pg_temp.bench_id('brd', ${yearStart} - interval '1 day', b),
       'Product ' || p, 'product-' || p, 'https://shop.example/b' || b || '/p' || p, ${yearStart} - interval '1 day', ${yearStart} - interval '1 day'
     from generate_series(1, ${shape.brands}) b, generate_series(1, 10) p`,
  );
  // four channels per brand: two Facebook pages, Threads, X
  await step(
    'channels (4 per brand)',
    `insert into channel_accounts (id, organization_id, brand_id, platform, external_account_id, display_name, handle, state, scopes, created_at, updated_at)
     select pg_temp.bench_id('cha', ${yearStart} - interval '1 day', b * 10 + c), ${o}, pg_temp.bench_id('brd', ${yearStart} - interval '1 day', b),
       (array['facebook_page','facebook_page','threads','x'])[c], 'ext-' || b || '-' || c, 'Brand ' || b || ' channel ' || c, 'brand' || b || '_' || c,
       'connected', '{}'::text[], ${yearStart} - interval '1 day', ${yearStart} - interval '1 day'
     from generate_series(1, ${shape.brands}) b, generate_series(1, 4) c`,
  );

  // jobs: 8% in the month ahead (scheduled, a few awaiting approval or drafts), the rest over the past
  // 11 months with their outcome (published most, then failed, cancelled, missed, needs attention)
  await client.query(`create temp table bench_jobs as
    select i, pg_temp.bench_id('job', at, i) as id, at, at + ((i::bigint * 7919) % 96) * interval '1 hour' as sched,
      1 + (i % ${shape.brands}) as brand, pg_temp.bench_id('brd', ${yearStart} - interval '1 day', 1 + (i % ${shape.brands})) as brand_id, case when i % 3 = 0 then 4 else 3 end as ntargets, (i * 31) % 100 as roll
    from (select i, ${jobAt('i', shape.jobs)} as at from generate_series(1, ${shape.jobs}) i) s`);
  await client.query(`alter table bench_jobs add column status text`);
  await client.query(`create temp table bench_channels as
    select b as brand, c as pos, pg_temp.bench_id('cha', ${yearStart} - interval '1 day', b * 10 + c) as id
    from generate_series(1, ${shape.brands}) b, generate_series(1, 4) c`);
  await client.query(`update bench_jobs set status = case
      when sched > (select now from bench_anchor) then case when roll < 3 then 'draft' when roll < 6 then 'pending_approval' else 'scheduled' end
      when roll < 84 then 'published' when roll < 90 then 'failed' when roll < 95 then 'cancelled' when roll < 98 then 'missed'
      else 'needs_attention' end`);
  await step(
    'publish jobs',
    `insert into publish_jobs (id, organization_id, brand_id, product_id, title, text, media, status, scheduled_at, created_at, updated_at)
     select id, ${o}, brand_id, pg_temp.bench_id('prd', ${yearStart} - interval '1 day', brand * 100 + 1 + i % 10),
       null, 'Post ' || i || ' of brand ' || brand || ': a new product is in the shop', '[]'::jsonb, status,
       case when status = 'draft' then null else sched end, at, greatest(at, least(sched, (select now from bench_anchor)))
     from bench_jobs`,
  );
  await step(
    'publish targets',
    `insert into publish_targets (id, organization_id, job_id, brand_id, channel_account_id, platform, position, text, settings, state, version,
        scheduled_at, next_attempt_at, due_at, attempts, last_error, state_reason, provider_post_id, provider_url, published_at,
        first_comment, first_comment_state, first_comment_error, created_at, updated_at)
     select pg_temp.bench_id('tgt', j.at, j.i * 4 + p), ${o}, j.id, j.brand_id, ch.id, (array['facebook_page','facebook_page','threads','x'])[p], p - 1,
       'Post ' || j.i || ' of brand ' || j.brand, '{}'::jsonb, j.status, case when j.status in ('draft','scheduled','pending_approval') then 1 else 3 end,
       case when j.status = 'draft' then null else j.sched end,
       case when j.status in ('scheduled') then j.sched else null end,
       case when j.status in ('scheduled') then j.sched else null end,
       case when j.status in ('published','failed','missed','needs_attention') then 1 else 0 end,
       case when j.status = 'failed' then '{"code":"provider_rejected","message":"The platform refused the post"}'::jsonb else 'null'::jsonb end,
       null,
       case when j.status = 'published' then 'post-' || j.i || '-' || p else null end,
       case when j.status = 'published' then 'https://social.example/p/' || j.i || '-' || p else null end,
       case when j.status = 'published' then j.sched + interval '4 seconds' else null end,
       'null'::jsonb, null, 'null'::jsonb, j.at, greatest(j.at, least(j.sched, (select now from bench_anchor)))
     from bench_jobs j, generate_series(1, 4) p, bench_channels ch where p <= j.ntargets and ch.brand = j.brand and ch.pos = p`,
  );

  // brand 1 plans a year ahead: 10,000 scheduled posts on its four channels over the next 365 days
  // (the batch preview's existing posts; a 14-day preview window holds about 400 of them)
  await client.query(`create temp table bench_planned as
    select i, (select now from bench_anchor) + interval '1 day' + (i::float8 / 2500) * interval '365 days' as sched from generate_series(1, 2500) i`);
  await step(
    'brand 1 planned jobs',
    `insert into publish_jobs (id, organization_id, brand_id, product_id, text, media, status, scheduled_at, created_at, updated_at)
     select pg_temp.bench_id('job', (select now from bench_anchor) - interval '2 days', 90000000 + i), ${o}, pg_temp.bench_id('brd', ${yearStart} - interval '1 day', 1),
       pg_temp.bench_id('prd', ${yearStart} - interval '1 day', 100 + 1 + i % 10), 'Planned post ' || i, '[]'::jsonb, 'scheduled', sched,
       (select now from bench_anchor) - interval '2 days', (select now from bench_anchor) - interval '2 days'
     from bench_planned`,
  );
  await step(
    'brand 1 planned targets',
    `insert into publish_targets (id, organization_id, job_id, brand_id, channel_account_id, platform, position, text, settings, state, version,
        scheduled_at, next_attempt_at, due_at, last_error, first_comment, first_comment_error, created_at, updated_at)
     select pg_temp.bench_id('tgt', (select now from bench_anchor) - interval '2 days', 90000000 + i * 4 + p), ${o},
       pg_temp.bench_id('job', (select now from bench_anchor) - interval '2 days', 90000000 + i), pg_temp.bench_id('brd', ${yearStart} - interval '1 day', 1),
       pg_temp.bench_id('cha', ${yearStart} - interval '1 day', 10 + p), (array['facebook_page','facebook_page','threads','x'])[p], p - 1,
       'Planned post ' || i, '{}'::jsonb, 'scheduled', 1, sched + p * interval '7 minutes', sched + p * interval '7 minutes', sched + p * interval '7 minutes',
       'null'::jsonb, 'null'::jsonb, 'null'::jsonb, (select now from bench_anchor) - interval '2 days', (select now from bench_anchor) - interval '2 days'
     from bench_planned, generate_series(1, 4) p`,
  );
  await client.query('drop table bench_planned');

  await step(
    'media items',
    `insert into media_library_items (id, organization_id, brand_id, kind, mime_type, sha256, bytes, storage_backend, storage_key, metadata, created_at, updated_at)
     select pg_temp.bench_id('med', at, i), ${o}, pg_temp.bench_id('brd', ${yearStart} - interval '1 day', 1 + i % ${shape.brands}),
       case when i % 10 = 0 then 'video' else 'image' end, case when i % 10 = 0 then 'video/mp4' else 'image/jpeg' end,
       md5(i::text || 'a') || md5(i::text || 'b'), 100000 + i % 900000, 'disk', 'media/' || i,
       case when i % 10 = 0 then '{"width":1080,"height":1920,"durationMs":12000}'::jsonb else '{"width":1080,"height":1080}'::jsonb end, at, at
     from (select i, ${jobAt('i', shape.media)} - interval '30 days' as at from generate_series(1, ${shape.media}) i) s`,
  );

  // comments on a quarter of the published posts, five each, spread over the week after the post
  await step(
    'social comments',
    `insert into social_comments (id, organization_id, brand_id, channel_account_id, platform, post_target_id, provider_post_id, provider_comment_id,
        body, author_name, author_handle, provider_created_at, own, hidden, status, reply_status, metrics, last_synced_at, created_at, updated_at)
     select pg_temp.bench_id('sc', at, n), ${o}, brand_id, channel_account_id, platform, id, provider_post_id, 'c-' || n,
       'Comment ' || n, 'Reader ' || (n % 5000), 'reader' || (n % 5000), at, false, false,
       case when roll < 60 then 'replied' when roll < 65 then 'drafted' else 'needs_reply' end,
       case when roll < 60 then 'replied' when roll < 65 then 'drafted' when roll < 70 then 'failed' else 'none' end,
       '{}'::jsonb, at, at, at
     from (select t.*, k, row_number() over () as n, (t.published_at + k * interval '97 minutes') as at, (hashtext(t.id)::bigint + k * 37) & 127 as roll0
           from publish_targets t, generate_series(1, 5) k
           where t.organization_id = ${o} and t.state = 'published' and abs(hashtext(t.id)::bigint) % 4 = 0
           limit ${shape.comments}) s, lateral (select roll0 % 100 as roll) r`,
  );

  // analytics: two snapshots (a day and a week after) of half of the published posts
  await step(
    'analytics snapshots',
    `insert into analytics_snapshots (id, organization_id, brand_id, channel_account_id, platform, post_target_id, provider_post_id, captured_at, metrics, source, trigger, created_at)
     select pg_temp.bench_id('asnap', at, row_number() over ()), ${o}, brand_id, channel_account_id, platform, id, provider_post_id, at,
       jsonb_build_object('impressions', 100 + abs(hashtext(id)::bigint) % 5000, 'likes', abs(hashtext(id)::bigint) % 300, 'comments', abs(hashtext(id)::bigint) % 40),
       '{"metricNames":["impressions","likes","comments"],"apiVersion":"v1"}'::jsonb, 'schedule', at
     from (select t.*, t.published_at + d * interval '1 day' as at from publish_targets t, (values (1), (7)) v(d)
           where t.organization_id = ${o} and t.state = 'published' and t.platform in ('x', 'facebook_page') and abs(hashtext(t.id)::bigint) % 2 = 0
             and t.published_at + d * interval '1 day' < (select now from bench_anchor)) s`,
  );

  // webhooks: five endpoints; one event per ~job step, two deliveries per event, 1-4 attempts each
  await step(
    'webhook endpoints',
    `insert into webhook_endpoints (id, organization_id, url, description, event_types, enabled, metadata, secret_enc, created_at, updated_at)
     select pg_temp.bench_id('we', ${yearStart} - interval '1 day', e), ${o}, 'https://hooks.example/' || e, 'Endpoint ' || e, '[]'::jsonb, true, '{}'::jsonb,
       'v1:unused', ${yearStart} - interval '1 day', ${yearStart} - interval '1 day'
     from generate_series(1, 5) e`,
  );
  await step(
    'events',
    `insert into events (id, organization_id, type, data, sequence_key, sequence, created_at, fanned_out_at)
     select pg_temp.bench_id('evt', at, i), ${o}, (array['publish_job.created','publish_job.scheduled','publish_target.published','publish_job.completed','social_comment.received'])[1 + i % 5],
       jsonb_build_object('n', i), null, null, at, at
     from (select i, ${jobAt('i', shape.events)} - interval '30 days' as at from generate_series(1, ${shape.events}) i) s`,
  );
  // delivered 95%, failed 4%, pending 1% (its retry due in the hour ahead)
  await step(
    'webhook deliveries',
    `insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at, last_status_code,
        last_error, delivered_at, created_at, updated_at)
     select pg_temp.bench_id('wdl', e.created_at, (row_number() over ()) ), ${o}, (select array_agg(id order by id) from webhook_endpoints where organization_id = ${o})[1 + (abs(hashtext(e.id)::bigint) + d) % 5], e.id, e.type,
       case when r < 95 then 'delivered' when r < 99 then 'failed' else 'pending' end, a,
       case when r >= 99 then (select now from bench_anchor) + (abs(hashtext(e.id)::bigint) % 60) * interval '1 minute' else null end,
       case when r < 95 then 200 else 503 end, case when r < 95 then null else 'http_status' end,
       case when r < 95 then e.created_at + interval '1 second' else null end, e.created_at, e.created_at + a * interval '1 minute'
     from events e, (values (0), (1)) v(d), lateral (select (abs(hashtext(e.id)::bigint) + d * 7) % 100 as r, 1 + (abs(hashtext(e.id)::bigint) + d) % 4 as a) x
     where e.organization_id = ${o}`,
  );
  await step(
    'webhook attempts',
    `insert into webhook_attempts (id, delivery_id, attempt, status_code, duration_ms, response_excerpt, error_class, next_retry_at, created_at)
     select pg_temp.bench_id('wat', d.created_at + k * interval '1 minute', (row_number() over ())), d.id, k,
       case when k = d.attempt_count and d.status = 'delivered' then 200 else 503 end, 40 + k * 13,
       case when k = d.attempt_count and d.status = 'delivered' then 'ok' else 'Service Unavailable' end,
       case when k = d.attempt_count and d.status = 'delivered' then null else 'http_status' end,
       null, d.created_at + k * interval '1 minute'
     from webhook_deliveries d, generate_series(1, 4) k where d.organization_id = ${o} and k <= d.attempt_count`,
  );

  // automations: one feed source per brand, a run a day, the feed items each has seen
  await step(
    'automation sources',
    `insert into automation_sources (id, organization_id, brand_id, kind, name, enabled, config, schedule, state, last_run_at, created_at, updated_at)
     select pg_temp.bench_id('asrc', ${yearStart} - interval '1 day', b), ${o}, pg_temp.bench_id('brd', ${yearStart} - interval '1 day', b), 'rss_feed',
       'Feed ' || b, true, jsonb_build_object('url', 'https://blog.example/b' || b || '/feed.xml'), '{"everyMinutes":1440}'::jsonb, '{}'::jsonb,
       (select now from bench_anchor) - interval '1 hour', ${yearStart} - interval '1 day', ${yearStart} - interval '1 day'
     from generate_series(1, ${shape.brands}) b`,
  );
  await step(
    'automation runs',
    `insert into automation_runs (id, organization_id, source_id, status, trigger, dry_run, tick_key, started_at, finished_at, error, output, created_at, updated_at)
     select pg_temp.bench_id('arun', at, b * 1000 + d), ${o}, pg_temp.bench_id('asrc', ${yearStart} - interval '1 day', b), 'succeeded', 'schedule', false,
       'tick-' || d, at, at + interval '2 seconds', null, '{"publishJobIds":[],"publishBatchIds":[],"itemsSeen":3,"itemsCreated":0}'::jsonb, at, at
     from generate_series(1, ${shape.brands}) b, generate_series(0, 334) d, lateral (select ${yearStart} + d * interval '1 day' as at) t`,
  );
  await step(
    'automation seen items',
    `insert into automation_seen_items (source_id, item_key, created_at)
     select pg_temp.bench_id('asrc', ${yearStart} - interval '1 day', 1 + i % ${shape.brands}), 'https://blog.example/post/' || i, ${jobAt('i', shape.automationItems)}
     from generate_series(1, ${shape.automationItems}) i`,
  );

  // the small organizations: a brand, a channel, five jobs of two targets, ten comments each
  const s = shape.smallOrganizations;
  await step(
    'small organizations',
    `insert into organizations (id, name, created_at, updated_at)
     select pg_temp.bench_id('org', ${yearStart}, 10000000 + g), 'Small ' || g, ${yearStart}, ${yearStart} from generate_series(1, ${s}) g`,
  );
  await step(
    'small brands and channels',
    `with b as (insert into brands (id, organization_id, name, slug, created_at, updated_at)
       select pg_temp.bench_id('brd', ${yearStart}, 10000000 + g), pg_temp.bench_id('org', ${yearStart}, 10000000 + g), 'Shop', 'shop', ${yearStart}, ${yearStart}
       from generate_series(1, ${s}) g returning id, organization_id)
     insert into channel_accounts (id, organization_id, brand_id, platform, external_account_id, display_name, state, scopes, created_at, updated_at)
     select replace(b.id, 'brd_', 'cha_'), b.organization_id, b.id, 'x', 'small-' || b.id, 'Shop on X', 'connected', '{}'::text[], ${yearStart}, ${yearStart} from b`,
  );
  await step(
    'small jobs',
    `insert into publish_jobs (id, organization_id, brand_id, text, media, status, scheduled_at, created_at, updated_at)
     select pg_temp.bench_id('job', at, 20000000 + g * 10 + k), pg_temp.bench_id('org', ${yearStart}, 10000000 + g), pg_temp.bench_id('brd', ${yearStart}, 10000000 + g),
       'Small post', '[]'::jsonb, 'published', at, at, at
     from generate_series(1, ${s}) g, generate_series(1, 5) k, lateral (select ${yearStart} + ((g * 5 + k) % 330) * interval '1 day' as at) t`,
  );
  await step(
    'small targets',
    `insert into publish_targets (id, organization_id, job_id, brand_id, channel_account_id, platform, position, text, settings, state, version, scheduled_at,
        attempts, last_error, provider_post_id, published_at, first_comment, first_comment_error, created_at, updated_at)
     select pg_temp.bench_id('tgt', j.created_at, 40000000 + row_number() over ()), j.organization_id, j.id, j.brand_id, replace(j.brand_id, 'brd_', 'cha_'), 'x', p - 1,
       'Small post', '{}'::jsonb, 'published', 3, j.scheduled_at, 1, 'null'::jsonb, 'sp-' || j.id || '-' || p, j.scheduled_at, 'null'::jsonb, 'null'::jsonb, j.created_at, j.created_at
     from publish_jobs j, generate_series(1, 2) p where j.organization_id <> ${o}`,
  );
  await step(
    'small comments',
    `insert into social_comments (id, organization_id, brand_id, channel_account_id, platform, post_target_id, provider_post_id, provider_comment_id,
        body, own, hidden, status, reply_status, metrics, last_synced_at, created_at, updated_at)
     select pg_temp.bench_id('sc', t.published_at, 50000000 + row_number() over ()), t.organization_id, t.brand_id, t.channel_account_id, t.platform, t.id, t.provider_post_id,
       'sc-' || t.id || '-' || k, 'Nice', false, false, 'needs_reply', 'none', '{}'::jsonb, t.published_at, t.published_at, t.published_at
     from publish_targets t, generate_series(1, 5) k where t.organization_id <> ${o} and t.position = 0`,
  );
  await client.query('set session_replication_role = origin');
  const t0 = performance.now();
  const saved = (await client.query('select indexdef from bench_saved_indexes')).rows;
  await client.query("set maintenance_work_mem = '256MB'");
  for (const r of saved) await client.query(r.indexdef);
  log(`  ${saved.length} indexes built again: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await client.query('drop table bench_jobs');
  await client.query('drop table bench_channels');
}
