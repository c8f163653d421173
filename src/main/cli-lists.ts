/**
 * Operator commands that list and revoke what the other commands create: organizations, brands,
 * products, API keys, channels and publish jobs. A readable table on a terminal, `--json` for scripts.
 * Everything but `organizations list` is scoped to one organization (--organization), through the
 * areas' repositories.
 */
import type { Config } from '../config.js';
import { brandsRepository } from '../modules/brands/brands.repository.js';
import { channelsRepository } from '../modules/channels/channels.repository.js';
import type { Executor } from '../modules/database.js';
import { apiKeysRepository } from '../modules/identity/api-keys.repository.js';
import { publishingRepository } from '../modules/publishing/publishing.repository.js';
import { args, type CliCommand, required, withDatabase } from '../platform/cli/cli-kit.js';
import { AppError } from '../platform/errors.js';

type Row = Record<string, unknown>;

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '-';
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.join(',');
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
};

/** Prints rows as an aligned table (or JSON with --json). */
function printTable(rows: Row[], columns: string[], json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  process.stdout.write(
    `${[line(columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n')}\n`,
  );
}

async function requireOrganization(db: Executor, organizationId: string): Promise<void> {
  const found = await db.selectFrom('organizations').select('id').where('id', '=', organizationId).executeTakeFirst();
  if (!found) throw new AppError('invalid_request', { message: `No organization ${organizationId}.` });
}

const LIMIT = 1000;

export const listCommands: CliCommand<Config>[] = [
  {
    name: 'organizations list',
    usage: 'organizations list [--json]  every organization with its brand and API key counts',
    async run({ config, argv }) {
      const { values } = args(argv, {});
      const rows = await withDatabase(config, (h) =>
        // operator-wide by design: the one listing that is not scoped to an organization
        h.db
          .selectFrom('organizations as o')
          .select((eb) => [
            'o.id as organizationId',
            'o.name',
            'o.created_at as createdAt',
            eb.selectFrom('brands').whereRef('brands.organization_id', '=', 'o.id').select(eb.fn.countAll<number>().as('n')).as('brands'),
            eb
              .selectFrom('api_keys')
              .whereRef('api_keys.organization_id', '=', 'o.id')
              .where('api_keys.revoked_at', 'is', null)
              .select(eb.fn.countAll<number>().as('n'))
              .as('activeApiKeys'),
          ])
          .orderBy('o.id')
          .execute(),
      );
      printTable(rows as Row[], ['organizationId', 'name', 'brands', 'activeApiKeys', 'createdAt'], values.json === true);
    },
  },
  {
    name: 'brands list',
    usage: 'brands list --organization ID [--json]',
    async run({ config, argv }) {
      const { values } = args(argv, { organization: { type: 'string' } });
      const organizationId = required(values, 'organization');
      const rows = await withDatabase(config, async (h) => {
        await requireOrganization(h.db, organizationId);
        return brandsRepository.list(h.db, organizationId, { afterId: null, limit: LIMIT });
      });
      printTable(
        rows.map((b) => ({ brandId: b.id, name: b.name, slug: b.slug, timezone: b.timezone, createdAt: b.created_at })),
        ['brandId', 'name', 'slug', 'timezone', 'createdAt'],
        values.json === true,
      );
    },
  },
  {
    name: 'products list',
    usage: 'products list --brand ID [--json]',
    async run({ config, argv }) {
      const { values } = args(argv, { brand: { type: 'string' } });
      const brandId = required(values, 'brand');
      const rows = await withDatabase(config, async (h) => {
        const organizationId = await brandsRepository.organizationOfBrand(h.db, brandId);
        if (!organizationId) throw new AppError('invalid_request', { message: `No brand ${brandId}.` });
        return brandsRepository.productsFor(h.db, organizationId, [brandId]);
      });
      printTable(
        rows.map((p) => ({ productId: p.id, name: p.name, slug: p.slug, productUrl: p.product_url, storeProductId: p.store_product_id })),
        ['productId', 'name', 'slug', 'productUrl', 'storeProductId'],
        values.json === true,
      );
    },
  },
  {
    name: 'api-keys list',
    usage: 'api-keys list --organization ID [--json]  (prefixes only; secrets are never shown again)',
    async run({ config, argv }) {
      const { values } = args(argv, { organization: { type: 'string' } });
      const organizationId = required(values, 'organization');
      const rows = await withDatabase(config, async (h) => {
        await requireOrganization(h.db, organizationId);
        return apiKeysRepository.listForOrganization(h.db, organizationId);
      });
      printTable(
        rows.map((k) => ({
          apiKeyId: k.id,
          name: k.name,
          prefix: k.prefix,
          scopes: k.scopes,
          state: k.revokedAt ? 'revoked' : 'active',
          lastUsedAt: k.lastUsedAt,
          createdAt: k.createdAt,
        })),
        ['apiKeyId', 'name', 'prefix', 'scopes', 'state', 'lastUsedAt', 'createdAt'],
        values.json === true,
      );
    },
  },
  {
    name: 'api-keys revoke',
    usage: 'api-keys revoke --organization ID --key API_KEY_ID [--json]',
    async run({ config, argv, out }) {
      const { values } = args(argv, { organization: { type: 'string' }, key: { type: 'string' } });
      const organizationId = required(values, 'organization');
      const apiKeyId = required(values, 'key');
      const revoked = await withDatabase(config, async (h) => {
        await requireOrganization(h.db, organizationId);
        return apiKeysRepository.revoke(h.db, organizationId, apiKeyId, new Date());
      });
      if (!revoked) throw new AppError('invalid_request', { message: `No active API key ${apiKeyId} in ${organizationId}.` });
      out({ apiKeyId, revoked: true }, values.json === true);
    },
  },
  {
    name: 'channels list',
    usage: 'channels list --organization ID [--brand ID] [--json]',
    async run({ config, argv }) {
      const { values } = args(argv, { organization: { type: 'string' }, brand: { type: 'string' } });
      const organizationId = required(values, 'organization');
      const rows = await withDatabase(config, async (h) => {
        await requireOrganization(h.db, organizationId);
        return channelsRepository.list(h.db, organizationId, { brandId: values.brand as string | undefined, afterId: null, limit: LIMIT });
      });
      printTable(
        rows.map((c) => ({
          channelAccountId: c.id,
          platform: c.platform,
          displayName: c.display_name,
          handle: c.handle,
          state: c.state,
          brandId: c.brand_id,
        })),
        ['channelAccountId', 'platform', 'displayName', 'handle', 'state', 'brandId'],
        values.json === true,
      );
    },
  },
  {
    name: 'jobs list',
    usage: 'jobs list --organization ID [--brand ID] [--status S] [--json]',
    async run({ config, argv }) {
      const { values } = args(argv, { organization: { type: 'string' }, brand: { type: 'string' }, status: { type: 'string' } });
      const organizationId = required(values, 'organization');
      const rows = await withDatabase(config, async (h) => {
        await requireOrganization(h.db, organizationId);
        return publishingRepository.listJobs(h.db, organizationId, {
          brandId: values.brand as string | undefined,
          status: values.status as string | undefined,
          beforeId: null,
          limit: LIMIT,
        });
      });
      printTable(
        rows.map((j) => ({ publishJobId: j.id, status: j.status, title: j.title, brandId: j.brand_id, createdAt: j.created_at })),
        ['publishJobId', 'status', 'title', 'brandId', 'createdAt'],
        values.json === true,
      );
    },
  },
  {
    name: 'jobs show',
    usage: 'jobs show --organization ID --job PUBLISH_JOB_ID [--json]  a job with each target outcome',
    async run({ config, argv }) {
      const { values } = args(argv, { organization: { type: 'string' }, job: { type: 'string' } });
      const organizationId = required(values, 'organization');
      const jobId = required(values, 'job');
      const { job, targets } = await withDatabase(config, async (h) => {
        const job = await publishingRepository.getJob(h.db, organizationId, jobId);
        if (!job) throw new AppError('invalid_request', { message: `No publish job ${jobId} in ${organizationId}.` });
        return { job, targets: await publishingRepository.targetsOf(h.db, organizationId, [jobId]) };
      });
      const rows = targets.map((t) => ({
        postTargetId: t.id,
        platform: t.platform,
        channelAccountId: t.channel_account_id,
        state: t.state,
        permalink: t.provider_url,
        error: t.last_error ? `${t.last_error.category}: ${t.last_error.code}` : null,
      }));
      if (values.json === true) {
        process.stdout.write(`${JSON.stringify({ publishJobId: job.id, status: job.status, title: job.title, targets: rows }, null, 2)}\n`);
        return;
      }
      process.stdout.write(`publish job ${job.id}: ${job.status}${job.title ? ` (${job.title})` : ''}\n`);
      printTable(rows, ['postTargetId', 'platform', 'channelAccountId', 'state', 'permalink', 'error'], false);
    },
  },
];
