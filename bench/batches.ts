/**
 * Publish batch benchmark (`npm run bench:batches`), on the embedded database, or on PostgreSQL when
 * DATABASE_URL is set (a fresh database is created and dropped).
 *
 * Prints:
 * - preview of 1,000 items x 4 targets over 14 days with 6 slots and 200 existing scheduled targets,
 *   through HTTP (POST /v1/publish/batches/preview): p50 / p99 latency (target p99 < 200 ms);
 * - preview of 10,000 items x 4 targets (called in process: the body is above the HTTP body limit) and
 *   its ratio to the 1,000-item time (target <= 12x, i.e. near linear);
 * - commit (dryRun false) of 1,000 items x 4 targets: wall time (target < 2 s on PostgreSQL).
 *
 * RUNS (default 15) sets the number of 1,000-item previews.
 */

import type { PublishBatchCommitRequestT, PublishBatchPreviewRequestT } from '../src/modules/batches/batches.schemas.js';
import { BrandsService } from '../src/modules/brands/brands.service.js';
import { createTestContext } from '../test/support/harness.js';
import { percentile as pct } from './support/stats.js';

const RUNS = Number(process.env.RUNS ?? 15);
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main() {
  // the tests' check of every answer against the OpenAPI document is not part of a production request
  const ctx = await createTestContext({ env: { SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true' }, checkOpenApi: false });
  try {
    const org = await ctx.createOrganization({ name: 'Bench' });
    const { brandId } = await ctx.createBrand(org.organizationId, 'Bench brand');
    const brands = new BrandsService(ctx.database.db);
    const products: string[] = [];
    for (let i = 0; i < 40; i++)
      products.push(
        (
          await brands.createProduct(
            org.organizationId,
            brandId,
            { name: `Product ${i}`, productUrl: `https://shop.example/p/${i}` },
            new Date(),
          )
        ).productId,
      );
    const vault = ctx.root.shared.vault;
    const channels: Array<{ platform: string; channelAccountId: string }> = [];
    for (const [platform, ext] of [
      ['facebook_page', 'page-1'],
      ['facebook_page', 'page-2'],
      ['threads', 'threads-1'],
      ['x', 'x-1'],
    ] as const) {
      const ref = await vault.store(ctx.database.db, {
        organizationId: org.organizationId,
        platform,
        kind: 'access',
        token: `token-${ext}`,
        at: new Date(),
      });
      const res = await ctx.app.inject({
        method: 'PUT',
        url: '/v1/channel-accounts',
        headers: org.auth,
        payload: { organizationId: org.organizationId, platform, externalAccountId: ext, displayName: ext, accessTokenRef: ref, brandId },
      });
      channels.push({ platform, channelAccountId: res.json().channelAccountId });
    }
    const policy = {
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
    };
    const from = new Date(Date.now() + 86_400_000).toISOString();
    const items = (n: number, prefix: string) =>
      Array.from({ length: n }, (_, i) => ({
        clientAssetId: `${prefix}-${i}`,
        productId: products[i % products.length]!,
        text: `${prefix} post ${i} about product ${i % products.length}`,
        targets: channels,
      }));
    const commits = ctx.root.areas.batches.commits;

    // 200 existing scheduled targets (50 items x 4 channels), committed before the measured previews
    const seeded = await commits.commit(org.organizationId, {
      brandId,
      from,
      policy,
      items: items(50, 'existing'),
      dryRun: false,
      source: 'bench',
      freezeHorizonMinutes: 120,
    } as PublishBatchCommitRequestT);
    if (seeded.kind !== 'created') throw new Error('seeding failed');
    console.log(`existing scheduled targets: ${seeded.batch.targetCount}`);

    const body1k = { brandId, from, policy, items: items(1000, 'p1k') };
    // two unmeasured runs warm the JIT and the query plans
    for (let r = 0; r < 2; r++)
      await ctx.app.inject({ method: 'POST', url: '/v1/publish/batches/preview', headers: org.auth, payload: body1k });
    const times: number[] = [];
    let assignments = 0;
    for (let r = 0; r < RUNS; r++) {
      const t0 = performance.now();
      const res = await ctx.app.inject({ method: 'POST', url: '/v1/publish/batches/preview', headers: org.auth, payload: body1k });
      times.push(performance.now() - t0);
      if (res.statusCode !== 200) throw new Error(res.body);
      assignments = res.json().assignmentCount;
    }
    console.log(
      `preview 1,000 items x 4 targets, 14 days, 6 slots, 200 existing (HTTP, ${RUNS} runs): p50 ${ms(pct(times, 50))}, p99 ${ms(pct(times, 99))}; ${assignments} assignments (target p99 < 200 ms)`,
    );

    const inProcess1k: number[] = [];
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      await commits.preview(org.organizationId, body1k as PublishBatchPreviewRequestT);
      inProcess1k.push(performance.now() - t0);
    }
    const t10 = performance.now();
    const big = await commits.preview(org.organizationId, {
      brandId,
      from,
      policy,
      items: items(10_000, 'p10k'),
    } as PublishBatchPreviewRequestT);
    const tenK = performance.now() - t10;
    const base = pct(inProcess1k, 50);
    console.log(
      `preview 10,000 items x 4 targets (in process): ${ms(tenK)}, ${big.assignmentCount} assignments; ${(tenK / base).toFixed(1)}x the 1,000-item time of ${ms(base)} (target <= 12x)`,
    );

    const t1 = performance.now();
    // a policy with room for every target (no gap or cooldown), so the commit writes 1,000 jobs and 4,000 targets
    const roomy = { ...policy, slots: policy.slots.map((sl) => ({ ...sl, minGapMinutes: 0, productCooldownMinutes: 0 })) };
    const committed = await commits.commit(org.organizationId, {
      ...body1k,
      policy: roomy,
      items: items(1000, 'c1k'),
      dryRun: false,
      source: 'bench',
      freezeHorizonMinutes: 120,
    } as PublishBatchCommitRequestT);
    const commitMs = performance.now() - t1;
    if (committed.kind !== 'created') throw new Error('commit failed');
    console.log(
      `commit 1,000 items x 4 targets (${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}): ${ms(commitMs)}, ${committed.batch.queuedTargetCount} of ${committed.batch.targetCount} targets scheduled, status ${committed.batch.status} (target < 2 s on PostgreSQL)`,
    );
  } finally {
    await ctx.close();
  }
}

await main();
