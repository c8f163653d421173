/** Shared setup of the batch tests: an organization with products and Meta simulator channels. */
import { BrandsService } from '../../src/modules/brands/brands.service.js';
import { connectChannel, createOrg, type Org, type PublishingHarness } from '../publishing/publishing-harness.js';

export interface BatchOrg extends Org {
  fb: string;
  threads: string;
  ig: string;
  products: Array<{ productId: string; productUrl: string }>;
}

export async function createBatchOrg(h: PublishingHarness, name: string, productCount = 3): Promise<BatchOrg> {
  const org = await createOrg(h, name);
  const brands = new BrandsService(h.ctx.database.db);
  const products = [];
  for (let i = 0; i < productCount; i++) {
    const p = await brands.createProduct(
      org.organizationId,
      org.brandId,
      { name: `Product ${i}`, productUrl: `https://shop.example/p/${i}?ref=home` },
      new Date(),
    );
    products.push({ productId: p.productId, productUrl: p.productUrl! });
  }
  const fb = (await connectChannel(h, org, 'facebook_page')).channelAccountId;
  const threads = (await connectChannel(h, org, 'threads')).channelAccountId;
  const ig = (await connectChannel(h, org, 'instagram_business')).channelAccountId;
  return { ...org, fb, threads, ig, products };
}

export const dailySlots = (overrides: Record<string, unknown> = {}) => ({
  id: 'daily',
  horizonDays: 7,
  slots: [
    { id: 'morning', localTime: '09:00', timezone: 'Europe/Berlin', ...overrides },
    { id: 'evening', localTime: '18:30', timezone: 'America/New_York', ...overrides },
  ],
});

/** n items cycling through the org's products, each to Facebook and Threads. */
export function items(org: BatchOrg, n: number, prefix = 'asset') {
  return Array.from({ length: n }, (_, i) => ({
    clientAssetId: `${prefix}-${i}`,
    productId: org.products[i % org.products.length]!.productId,
    text: `${prefix} post ${i}`,
    targets: [
      { platform: 'facebook_page', channelAccountId: org.fb },
      { platform: 'threads', channelAccountId: org.threads },
    ],
  }));
}
