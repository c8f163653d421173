/**
 * The bench's two databases (`bench_scale_small`, `bench_scale_large` on the server of DATABASE_URL):
 * created, migrated with the service's migrations and seeded once, then reused while their recorded
 * shape matches (a changed factor or seed version seeds again; BENCH_SCALE_RESEED=1 forces it). Pending
 * migrations (new indexes) are applied to a reused database before each run.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { BrandsService } from '../../src/modules/brands/brands.service.js';
import { IdentityService } from '../../src/modules/identity/identity.service.js';
import { type DatabaseHandle, openPostgres } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { down as undo0018 } from '../../src/platform/db/migrations/0018-scale-indexes.js';
import { ALL_SCOPES, createTestContext, type TestContext } from '../../test/support/harness.js';
import { seed, shapeFor } from './seed.js';

/** Bumped when the seed's shape changes, so an old database is seeded again. */
const SEED_VERSION = 4;

export interface Dataset {
  name: string;
  url: string;
  factor: number;
  organizationId: string;
  userId: string;
  /** the anchor of the seeded year (its last day is the day before this) */
  seededAt: Date;
}

function urlOf(base: string, name: string) {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

async function readMeta(url: string): Promise<Dataset | null> {
  const c = new pg.Client({ connectionString: url });
  try {
    await c.connect();
  } catch {
    return null;
  }
  try {
    const r = await c.query('select * from bench_scale_meta').catch(() => null);
    const m = r?.rows[0];
    if (!m || m.seed_version !== SEED_VERSION) return null;
    return { name: '', url, factor: m.factor, organizationId: m.organization_id, userId: m.user_id, seededAt: m.seeded_at };
  } finally {
    await c.end();
  }
}

export async function prepareDataset(baseUrl: string, name: string, factor: number, log: (s: string) => void): Promise<Dataset> {
  const url = urlOf(baseUrl, name);
  const existing = process.env.BENCH_SCALE_RESEED === '1' ? null : await readMeta(url);
  if (existing && existing.factor === factor) {
    const handle = openPostgres(url, 2);
    // BENCH_SCALE_BEFORE=1 measures without migration 0018's indexes (undone here; the next run applies it again)
    if (process.env.BENCH_SCALE_BEFORE === '1') {
      await undo0018(handle.db);
      await sql`delete from service_migrations where name = '0018-scale-indexes'`.execute(handle.db);
      await sql`analyze`.execute(handle.db);
    }
    const ran = process.env.BENCH_SCALE_BEFORE === '1' ? [] : await migrateToLatest(handle.db);
    if (ran.length > 0) {
      log(`${name}: applied ${ran.join(', ')}; analyzing`);
      await sql`analyze`.execute(handle.db);
    }
    await handle.close();
    log(`${name}: reusing the seeded database (factor ${factor})`);
    return { ...existing, name };
  }

  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();

  const t0 = performance.now();
  log(`${name}: seeding at factor ${factor}`);
  const handle = openPostgres(url, 2);
  await migrateToLatest(handle.db);
  const now = new Date();
  const yearStart = new Date(now.getTime() - 335 * 86_400_000);
  const boot = await new IdentityService(handle.db).bootstrap(
    { organization: 'Agency', email: `owner@${name.replace(/_/g, '-')}.example`, password: 'correct horse battery' },
    yearStart,
  );
  await new BrandsService(handle.db).create(boot.organizationId, { name: 'Agency brand' }, yearStart);
  await handle.close();

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await seed(client, boot.organizationId, shapeFor(factor), now, log);
    const ta = performance.now();
    await client.query('vacuum analyze');
    log(`  vacuum analyze: ${((performance.now() - ta) / 1000).toFixed(1)} s`);
    await client.query(
      `create table bench_scale_meta (seed_version int, factor float8, organization_id text, user_id text, seeded_at timestamptz)`,
    );
    await client.query('insert into bench_scale_meta values ($1, $2, $3, $4, $5)', [
      SEED_VERSION,
      factor,
      boot.organizationId,
      boot.userId,
      now,
    ]);
    const size = await client.query(`select pg_size_pretty(pg_database_size(current_database())) as s`);
    log(`${name}: seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s, ${size.rows[0].s}`);
  } finally {
    await client.end();
  }
  return { name, url, factor, organizationId: boot.organizationId, userId: boot.userId, seededAt: now };
}

/**
 * The API in process on a data set's database (the same composition as the server, no rate limit) and an
 * API key of its agency with every scope: what the measurements call.
 */
export async function benchApi(
  database: DatabaseHandle,
  url: string,
  organizationId: string,
): Promise<{ ctx: TestContext; auth: Record<string, string> }> {
  const ctx = await createTestContext({
    database,
    redis: false,
    checkOpenApi: false,
    env: { DATABASE_URL: url, SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true' },
  });
  const key = await new IdentityService(database.db).createApiKeyFor({ organizationId, name: 'bench', scopes: ALL_SCOPES });
  return { ctx, auth: { authorization: `Bearer ${key.apiKey}` } };
}
