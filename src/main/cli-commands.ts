/**
 * The foundation's CLI commands: the process roles, migrations, and the first steps of an install
 * (bootstrap, API keys, brands and products) on the root's services (cli-root.ts `withRoot`). Areas add
 * theirs in their own *.cli.ts and cli.ts lists them with the part of the root they use.
 */
import { type Config, EnvSchema } from '../config.js';
import { parseScopes } from '../modules/identity/identity.module.js';
import { args, type CliCommand, openForCommand, required } from '../platform/cli/cli-kit.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { AppError } from '../platform/errors.js';
import { withBrand, withOrganization, withRoot } from './cli-root.js';
import { type Role, startRuntime, VERSION } from './runtime.js';

/** What a person starting the service needs to know first: where it listens, on what data, in which mode. */
function banner(config: Config, role: Role, address: string | null): string {
  const base = config.publicBaseUrl;
  const sandbox = config.env.SERVICE_PROVIDER_MODE === 'sandbox';
  const mode = `${config.embedded ? 'embedded (one process, no other services)' : 'production (PostgreSQL)'}${sandbox ? ', sandbox platforms' : ''}`;
  const lines = [
    `service-api ${VERSION}: ${role === 'all' ? 'API + worker' : role}`,
    ...(address ? [`  URL         ${base}  (listening on ${address})`] : []),
    `  mode        ${mode}`,
    `  database    ${config.embedded ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'}`,
    `  counters    ${config.env.REDIS_URL ? 'Redis (REDIS_URL)' : 'in process memory'}`,
    `  platforms   ${config.env.SERVICE_PROVIDER_MODE === 'sandbox' ? `sandbox: local simulators under ${base}/sandbox` : 'live platform APIs'}`,
    ...(address ? [`  API docs    ${base}/v1/docs  (OpenAPI: ${base}/v1/openapi.json)`, `  dashboard   ${base}/app/`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

function serve(role: Role): CliCommand<Config> {
  return {
    name: role === 'all' ? 'start' : role,
    usage:
      role === 'all'
        ? 'start                      API + worker in one process'
        : `${role.padEnd(26)} ${role === 'api' ? 'HTTP API only' : 'job worker only'} (needs DATABASE_URL)`,
    async run({ config }) {
      if (role !== 'all' && config.embedded) {
        throw new AppError('database_url_required', {
          message: `service-api ${role} runs as a separate process and needs DATABASE_URL (the embedded database admits one process); use "service-api start" for the embedded default.`,
        });
      }
      const runtime = await startRuntime(config, role, { progress: (step) => process.stderr.write(`starting: ${step}…\n`) });
      process.stderr.write(banner(config, role, runtime.address));
      await new Promise<void>((resolve) => {
        const onSignal = (signal: string) => {
          process.stderr.write(`${signal}: shutting down gracefully\n`);
          runtime.stop().then(resolve, (err) => {
            process.stderr.write(`shutdown error: ${(err as Error).message}\n`);
            resolve();
          });
        };
        process.once('SIGTERM', () => onSignal('SIGTERM'));
        process.once('SIGINT', () => onSignal('SIGINT'));
      });
      return 0;
    },
  };
}

export const foundationCommands: CliCommand<Config>[] = [
  serve('all'),
  serve('api'),
  serve('worker'),
  {
    name: 'migrate',
    usage: 'migrate [--init] [--json]   run pending database migrations',
    async run({ config, out, argv }) {
      const { values } = args(argv, {});
      // migrating creates the schema: on an embedded data dir without a database it is a "creates" command
      const handle = await openForCommand(config, { creates: true, init: values.init === true });
      try {
        const ran = await migrateToLatest(handle.db);
        out({ migrated: ran }, values.json === true);
      } finally {
        await handle.close();
      }
    },
  },
  {
    name: 'bootstrap',
    usage: 'bootstrap --organization NAME --email E --password P [--init] [--json]',
    async run({ config, argv, out }) {
      const { values } = args(argv, { organization: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } });
      const result = await withRoot(
        config,
        (root) =>
          root.areas.identity.service.bootstrap(
            { organization: required(values, 'organization'), email: required(values, 'email'), password: required(values, 'password') },
            new Date(),
          ),
        { creates: true, init: values.init === true },
      );
      out({ organizationId: result.organizationId, userId: result.userId, apiKey: result.apiKey }, values.json === true);
    },
  },
  {
    name: 'api-keys create',
    usage: 'api-keys create --organization ID [--scopes a,b] [--name N] [--json]',
    async run({ config, argv, out }) {
      const { values } = args(argv, { organization: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } });
      const organizationId = required(values, 'organization');
      const scopes = parseScopes(values.scopes as string | undefined);
      const key = await withRoot(config, (root) =>
        root.areas.identity.service.createApiKeyFor({ organizationId, scopes, name: values.name as string | undefined }),
      );
      out(key, values.json === true);
    },
  },
  {
    name: 'brands create',
    usage: 'brands create --organization ID --name N [--slug S] [--timezone Europe/Berlin] [--json]',
    async run({ config, argv, out }) {
      const { values } = args(argv, {
        organization: { type: 'string' },
        name: { type: 'string' },
        slug: { type: 'string' },
        timezone: { type: 'string' },
      });
      const organizationId = required(values, 'organization');
      const brand = await withOrganization(config, organizationId, async (areas) => {
        return areas.brands.service.create(
          organizationId,
          { name: required(values, 'name'), slug: values.slug as string | undefined, timezone: values.timezone as string | undefined },
          new Date(),
        );
      });
      out(brand, values.json === true);
    },
  },
  {
    name: 'products create',
    usage: 'products create --brand ID --name N [--product-url U] [--store-product-id S] [--slug S] [--json]',
    async run({ config, argv, out }) {
      const { values } = args(argv, {
        brand: { type: 'string' },
        name: { type: 'string' },
        slug: { type: 'string' },
        'product-url': { type: 'string' },
        'store-product-id': { type: 'string' },
      });
      const brandId = required(values, 'brand');
      const product = await withBrand(config, brandId, async (areas, organizationId) => {
        return areas.brands.service.createProduct(
          organizationId,
          brandId,
          {
            name: required(values, 'name'),
            slug: values.slug as string | undefined,
            productUrl: (values['product-url'] as string | undefined) ?? null,
            storeProductId: (values['store-product-id'] as string | undefined) ?? null,
          },
          new Date(),
        );
      });
      out(product, values.json === true);
    },
  },
  {
    name: 'config',
    usage: 'config --markdown           print the environment variables as a Markdown table',
    async run() {
      const rows = Object.entries(EnvSchema.properties).map(([name, schema]) => {
        const s = schema as { default?: unknown; description?: string };
        const def = s.default === undefined ? '' : `\`${String(s.default)}\``;
        return `| \`${name}\` | ${def} | ${(s.description ?? '').replace(/\|/g, '\\|')} |`;
      });
      process.stdout.write(['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n') + '\n');
    },
  },
];
