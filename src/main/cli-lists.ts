/**
 * Operator commands that list and revoke what the other commands create: organizations, brands,
 * products, API keys, channels and publish jobs. A readable table on a terminal, `--json` for scripts.
 * Everything but `organizations list` is scoped to one organization (--organization), through the
 * services of the root's areas (cli-root.ts `withRoot`).
 */
import type { Config } from '../config.js';
import type { PublishingModule } from '../modules/publishing/publishing.module.js';
import { args, type CliCommand, required } from '../platform/cli/cli-kit.js';
import { AppError } from '../platform/errors.js';
import { withBrand, withOrganization, withRoot } from './cli-root.js';

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

const LIMIT = 1000;
type JobStatus = Parameters<PublishingModule['jobsService']['list']>[1]['status'];

export const listCommands: CliCommand<Config>[] = [
  {
    name: 'organizations list',
    usage: 'organizations list [--json]  every organization with its brand and API key counts',
    async run({ config, argv }) {
      const { values } = args(argv, {});
      const rows = await withRoot(config, async ({ areas }) => {
        // operator-wide by design: the one listing that is not scoped to an organization
        const organizations = await areas.identity.service.organizations();
        const brands = await areas.brands.service.brandCounts(organizations.map((o) => o.id));
        return organizations.map((o) => ({
          organizationId: o.id,
          name: o.name,
          createdAt: o.createdAt,
          brands: brands.get(o.id) ?? 0,
          activeApiKeys: o.activeApiKeys,
        }));
      });
      printTable(rows, ['organizationId', 'name', 'brands', 'activeApiKeys', 'createdAt'], values.json === true);
    },
  },
  {
    name: 'brands list',
    usage: 'brands list --organization ID [--json]',
    async run({ config, argv }) {
      const { values } = args(argv, { organization: { type: 'string' } });
      const organizationId = required(values, 'organization');
      const rows = await withOrganization(config, organizationId, async (areas) => {
        return (await areas.brands.service.list(organizationId, { limit: LIMIT })).data;
      });
      printTable(
        rows.map((b) => ({ brandId: b.brandId, name: b.name, slug: b.slug, timezone: b.timezone, createdAt: b.createdAt })),
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
      const rows = await withBrand(config, brandId, async (areas, organizationId) => {
        return (await areas.brands.service.get(organizationId, brandId)).products ?? [];
      });
      printTable(
        rows.map((p) => ({
          productId: p.productId,
          name: p.name,
          slug: p.slug,
          productUrl: p.productUrl,
          storeProductId: p.storeProductId,
        })),
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
      const rows = await withRoot(config, ({ areas }) => areas.identity.service.apiKeys(organizationId));
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
      const revoked = await withRoot(config, ({ areas }) => areas.identity.service.revokeApiKey(organizationId, apiKeyId, new Date()));
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
      const rows = await withOrganization(config, organizationId, async (areas) => {
        return (await areas.channels.channels.list(organizationId, { brandId: values.brand as string | undefined, limit: LIMIT })).data;
      });
      printTable(
        rows.map((c) => ({
          channelAccountId: c.channelAccountId,
          platform: c.platform,
          displayName: c.displayName,
          handle: c.handle,
          state: c.state,
          brandId: c.brandId,
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
      const rows = await withOrganization(config, organizationId, async (areas) => {
        const query = { brandId: values.brand as string | undefined, status: values.status as JobStatus, limit: LIMIT };
        return (await areas.publishing.jobsService.list(organizationId, query)).data;
      });
      printTable(
        rows.map((j) => ({ publishJobId: j.publishJobId, status: j.status, title: j.title, brandId: j.brandId, createdAt: j.createdAt })),
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
      const job = await withRoot(config, ({ areas }) =>
        areas.publishing.jobsService.get(organizationId, jobId).catch((err: unknown) => {
          if (err instanceof AppError && err.code === 'public_publish_job_not_found')
            throw new AppError('invalid_request', { message: `No publish job ${jobId} in ${organizationId}.` });
          throw err;
        }),
      );
      const rows = job.targets.map((t) => ({
        postTargetId: t.postTargetId,
        platform: t.platform,
        channelAccountId: t.channelAccountId,
        state: t.state,
        permalink: t.providerUrl,
        error: t.lastError ? `${t.lastError.category}: ${t.lastError.code}` : null,
      }));
      if (values.json === true) {
        process.stdout.write(
          `${JSON.stringify({ publishJobId: job.publishJobId, status: job.status, title: job.title, targets: rows }, null, 2)}\n`,
        );
        return;
      }
      process.stdout.write(`publish job ${job.publishJobId}: ${job.status}${job.title ? ` (${job.title})` : ''}\n`);
      printTable(rows, ['postTargetId', 'platform', 'channelAccountId', 'state', 'permalink', 'error'], false);
    },
  },
];
