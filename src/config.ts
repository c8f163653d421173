/**
 * One TypeBox schema over the environment, parsed once at boot into a frozen Config. No other module
 * reads process.env. Every variable is documented in the README table (generated from this schema by
 * `service-api config --markdown`, so the table and the schema cannot drift).
 */
import path from 'node:path';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Bool, Int, Str } from './config-fields.js';
import { RETENTION_SETTINGS } from './config-retention.js';
import { SIGN_IN_SETTINGS } from './config-sign-in.js';
import { PLATFORMS, type Platform } from './providers/provider.js';

/** Feature gates: one boolean per 403 code of the specification, all on by default. */
const FEATURE_GATES = {
  SERVICE_PUBLIC_API_ENABLED: 'public_api_disabled',
  SERVICE_PUBLIC_OAUTH_ENABLED: 'public_oauth_disabled',
  SERVICE_PUBLISH_JOB_WRITE_ENABLED: 'publish_job_write_disabled',
  SERVICE_PUBLISH_ENQUEUE_ENABLED: 'publish_enqueue_disabled',
  SERVICE_PUBLISH_SCHEDULE_WRITE_ENABLED: 'publish_schedule_write_disabled',
  SERVICE_PUBLISH_CANCEL_WRITE_ENABLED: 'publish_cancel_write_disabled',
  SERVICE_MEDIA_UPLOAD_WRITE_ENABLED: 'media_upload_write_disabled',
  SERVICE_PROVIDER_COMMENT_REPLY_ENABLED: 'provider_comment_reply_disabled',
  SERVICE_SOCIAL_COMMENT_WRITE_ENABLED: 'social_comment_write_disabled',
  SERVICE_PUBLISH_URL_RECONCILIATION_ENABLED: 'publish_url_reconciliation_disabled',
  SERVICE_WEBHOOK_WRITE_ENABLED: 'webhook_write_disabled',
  SERVICE_AUTOMATION_WRITE_ENABLED: 'automation_write_disabled',
} as const;
type FeatureGate = keyof typeof FEATURE_GATES;

const gateSchemas = Object.fromEntries(
  Object.entries(FEATURE_GATES).map(([name, code]) => [name, Bool(true, `Feature gate; when false the gated routes answer 403 ${code}.`)]),
) as Record<FeatureGate, ReturnType<typeof Bool>>;

const envKey = (p: Platform) => p.toUpperCase();
const providerSchemas: Record<string, TSchema> = {};
for (const p of PLATFORMS) {
  const k = envKey(p);
  providerSchemas[`SERVICE_${k}_CLIENT_ID`] = Str(`${p}: OAuth client id (app id / client key).`);
  providerSchemas[`SERVICE_${k}_CLIENT_SECRET`] = Str(`${p}: OAuth client secret.`);
  providerSchemas[`SERVICE_${k}_REDIRECT_URI`] = Str(
    `${p}: OAuth redirect URI registered with the platform; default {SERVICE_PUBLIC_BASE_URL}/v1/channel-accounts/oauth/callback/${p}.`,
  );
  providerSchemas[`SERVICE_${k}_API_BASE_URL`] = Str(
    `${p}: API base URL including its version path (default: the platform's production API; docs/platforms.md lists each).`,
  );
  providerSchemas[`SERVICE_${k}_AUTH_BASE_URL`] = Str(`${p}: authorization base URL (default: the platform's production URL).`);
  providerSchemas[`SERVICE_${k}_UPLOAD_BASE_URL`] = Str(
    `${p}: upload base URL where the platform uses one, including its version path (default: production).`,
  );
}

export const EnvSchema = Type.Object({
  NODE_ENV: Str('Node environment; `production` refuses test-only settings.', 'development'),
  PORT: Int(8080, 'HTTP port of the API.', 0, 65535),
  HOST: Str(
    'HTTP bind address. The default listens on this machine only; set 0.0.0.0 (all IPv4 interfaces) or :: to serve the network, e.g. in a container.',
    '127.0.0.1',
  ),
  SERVICE_PUBLIC_BASE_URL: Str('Public base URL of this service (links, publicUrl, OAuth callbacks); default http://localhost:{PORT}.'),
  SERVICE_LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info', description: 'Log level (pino).' },
  ),
  SERVICE_TRUST_PROXY: Bool(false, 'Trust X-Forwarded-* headers (behind a load balancer).'),
  SERVICE_BODY_LIMIT_BYTES: Int(1_048_576, 'Largest JSON body accepted by the publishing API (413 payload_too_large above).', 1024),

  // ---- storage
  DATABASE_URL: Str('PostgreSQL connection string. Unset: embedded PGlite in SERVICE_DATA_DIR.'),
  SERVICE_DATA_DIR: Str('Data directory (embedded database, media, key file).', './.data'),
  SERVICE_DB_SOCKET_PATH: Str(
    'Embedded mode: Unix socket on which the embedded database is served to the CLI and psql; default {SERVICE_DATA_DIR}/.s.PGSQL.5432.',
  ),
  SERVICE_DB_POOL_SIZE: Int(10, 'PostgreSQL pool size per process.', 1, 200),
  DATABASE_PREPARED_STATEMENTS: Bool(
    true,
    'Run the most frequent statements as named prepared statements (parsed and planned once per connection). Set false behind a connection pooler in transaction mode that does not keep prepared statements (PgBouncer before 1.21 or without max_prepared_statements). Connections through a Unix socket (the embedded database served to a worker or the CLI) always run them unnamed.',
  ),
  REDIS_URL: Str('Redis URL. When set it backs every shared counter and readiness checks it.'),

  // ---- credentials and secrets
  SERVICE_INTERNAL_TOKEN: Str('Token for internal operational routes (x-service-internal-token). Unset: internal routes refuse everyone.'),
  SERVICE_PRINCIPAL_TOKEN: Str('Token for policy-gated admin routes (x-service-principal-token). Unset: refused.'),
  SERVICE_ENCRYPTION_KEY: Str(
    '32-byte key (base64 or hex) encrypting provider tokens at rest (AES-256-GCM). Embedded default: a key file generated in the data dir with mode 0600.',
  ),

  // ---- public API
  SERVICE_PUBLIC_API_ORIGIN: Str(
    'Comma-separated origins (scheme://host[:port]) the public API may be reached at; other effective request origins answer 421. Unset: any.',
  ),
  SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS: Int(600, 'Requests per window per principal.', 1),
  SERVICE_PUBLIC_API_RATE_LIMIT_WINDOW_SECONDS: Int(60, 'Rate-limit window in seconds.', 1),
  SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: Bool(false, 'Turns the public API rate limit off.'),
  SERVICE_PUBLIC_API_RATE_LIMIT_STORE: Str(
    'Counter store of the public API rate limit: memory or redis (redis needs REDIS_URL, else requests answer 400 redis_url_required; other values answer 400 invalid_public_api_rate_limit_store). Default: redis when REDIS_URL is set, else memory.',
  ),
  SERVICE_PUBLIC_API_NEGATIVE_CACHE_DISABLED: Bool(false, 'Turns off the 30-second cache of rejected credentials.'),
  ...gateSchemas,

  // ---- worker
  SERVICE_WORKER_HEARTBEAT_SECONDS: Int(5, 'How often the worker writes its heartbeat.', 1),
  SERVICE_WORKER_STALE_SECONDS: Int(30, 'Readiness reports the worker not ok when its last heartbeat is older than this.', 2),
  SERVICE_SHUTDOWN_TIMEOUT_SECONDS: Int(30, 'Graceful shutdown: how long to wait for requests and jobs in flight.', 1),

  // ---- media (media library)
  SERVICE_MEDIA_MAX_UPLOAD_BYTES: Int(268_435_456, 'Largest direct media upload (400 media_file_too_large above).', 1),
  SERVICE_MEDIA_MAX_JSON_UPLOAD_BYTES: Int(
    16_777_216,
    'Largest file accepted as JSON base64 (a JSON body is held in memory whole; larger files go through multipart, which is streamed, or remote import). Never above SERVICE_MEDIA_MAX_UPLOAD_BYTES.',
    1,
  ),
  SERVICE_REMOTE_MEDIA_IMPORT_BUDGET_STORE: Str(
    'Counter store of the remote media import budgets: memory or redis (the production store; needs REDIS_URL). Default: redis when REDIS_URL is set, else memory.',
  ),
  SERVICE_MEDIA_S3_BUCKET: Str('S3-compatible bucket for media bytes. Unset: disk under the data dir.'),
  SERVICE_MEDIA_S3_REGION: Str('S3 region.', 'us-east-1'),
  SERVICE_MEDIA_S3_ENDPOINT: Str('S3 endpoint URL for S3-compatible servers.'),
  SERVICE_MEDIA_S3_ACCESS_KEY_ID: Str('S3 access key id.'),
  SERVICE_MEDIA_S3_SECRET_ACCESS_KEY: Str('S3 secret access key.'),
  SERVICE_MEDIA_S3_FORCE_PATH_STYLE: Bool(true, 'Path-style bucket addressing (most S3-compatible servers).'),
  SERVICE_MEDIA_S3_PUBLIC_BASE_URL: Str(
    'Public URL prefix of the bucket; when set, publicUrl points there instead of the signed content route.',
  ),
  SERVICE_MEDIA_SIGNED_URL_TTL_SECONDS: Int(86_400, 'Lifetime of signed media content URLs.', 60),
  SERVICE_MEDIA_S3_PREFIX: Str('Key prefix of media objects inside the bucket (e.g. media/).'),
  SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: Str(
    'Tests only: comma-separated IPs/CIDRs that outbound requests to user-given URLs (media import, webhook deliveries, RSS feeds) may reach despite the address policy (e.g. 127.0.0.1/32). Refused at boot when NODE_ENV=production.',
  ),
  SERVICE_MEDIA_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: Str('Older name of SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS (both are read).'),
  // media: further media settings go here

  // ---- providers
  SERVICE_PROVIDER_MODE: Type.Union([Type.Literal('live'), Type.Literal('sandbox')], {
    default: 'live',
    description:
      'live: adapters call the platforms. sandbox: the built-in platform simulators are served by this process and every adapter points at them (no credentials needed).',
  }),
  SERVICE_PROVIDER_TIMEOUT_MS: Int(30_000, 'Timeout of one call to a platform.', 100),
  ...providerSchemas,
  // channels: further provider/channel settings go here
  SERVICE_CHANNEL_CONNECT_STATE_TTL_SECONDS: Int(
    600,
    'Lifetime of a channel OAuth connect state (the user must finish the platform login within it).',
    60,
    3600,
  ),
  SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS: Str(
    "Comma-separated extra origins (scheme://host[:port]) a connect request's returnUrl may point at, besides this service's origin (SERVICE_PUBLIC_BASE_URL) and the dashboard origins (SERVICE_DASHBOARD_ORIGINS), which are always allowed.",
  ),
  SERVICE_CHANNEL_TOKEN_ENV_REFS: Str(
    'Comma-separated NAME=token pairs: a channel accessTokenRef/refreshTokenRef `env:NAME` resolves to the token given for NAME here (tokens provisioned outside the connect flow).',
  ),
  SERVICE_CHANNEL_REFRESH_AHEAD_SECONDS: Int(
    900,
    'Token lifecycle: channels whose access token expires within this many seconds are refreshed.',
    60,
  ),
  SERVICE_CHANNEL_REFRESH_MAX_FAILURES: Int(
    5,
    'Token lifecycle: transient refresh failures in a row after which the channel is reported refresh_needed (it is never disconnected for them).',
    1,
    100,
  ),

  // ---- publishing (publishing engine; see docs/publishing.md)
  SERVICE_PUBLISH_WORKER_CONCURRENCY: Int(
    64,
    'Publishing: targets one worker process publishes at the same time (64: the standard rate-limit policy allows 64 publishes in flight per platform).',
    1,
    256,
  ),
  SERVICE_PUBLISH_LEAD_SECONDS: Int(
    5,
    'Publishing: the worker fetches publish jobs this long before they fall due and holds them until the due time (0: fetch when due).',
    0,
    60,
  ),
  SERVICE_PUBLISH_MAX_ATTEMPTS: Int(5, 'Publishing: attempts per target for transient and rate-limited failures before it fails.', 1, 20),
  SERVICE_PUBLISH_RETRY_BASE_MS: Int(
    30_000,
    'Publishing: first retry delay; doubles per attempt (with jitter), at least the platform retry-after.',
    10,
  ),
  SERVICE_PUBLISH_RETRY_MAX_MS: Int(900_000, 'Publishing: longest retry delay.', 10),
  SERVICE_PUBLISH_LEASE_SECONDS: Int(
    300,
    'Publishing: a target in publishing longer than this is flagged needs_attention by the reconciliation sweep (its outcome is unknown).',
    1,
  ),
  SERVICE_PUBLISH_RECONCILE_GRACE_SECONDS: Int(
    60,
    'Publishing: a due target with no pending worker job for this long is re-queued by the reconciliation sweep.',
    0,
  ),
  SERVICE_PUBLISH_POLL_MAX_SECONDS: Int(
    3_600,
    'Publishing: a post still processing on the platform after this long is flagged needs_attention.',
    10,
  ),

  // tools: tool API settings go here

  // auth: its settings go here
  SERVICE_OAUTH_CODE_TTL_SECONDS: Int(60, 'OAuth provider: authorization code lifetime (single use).', 10, 600),
  SERVICE_OAUTH_REFRESH_GRACE_SECONDS: Int(
    10,
    'OAuth provider: a consumed refresh token presented again within this window answers the same new pair.',
    0,
    60,
  ),
  ...SIGN_IN_SETTINGS,

  // provider webhooks: inbound platform events and their subscriptions (docs/provider-webhooks.md)
  SERVICE_PROVIDER_WEBHOOK_VERIFY_TOKEN: Str(
    'Provider webhooks: the verify token given to Meta (Facebook Page, Instagram, Threads) app subscriptions and checked on their GET handshake. Unset: Meta handshakes are refused and Meta provisioning is not configured.',
  ),
  SERVICE_FACEBOOK_PAGE_WEBHOOK_SECRET: Str(
    'Provider webhooks: app secret that signs facebook_page deliveries (X-Hub-Signature-256); default SERVICE_FACEBOOK_PAGE_CLIENT_SECRET.',
  ),
  SERVICE_INSTAGRAM_BUSINESS_WEBHOOK_SECRET: Str(
    'Provider webhooks: app secret that signs instagram_business deliveries; default SERVICE_INSTAGRAM_BUSINESS_CLIENT_SECRET.',
  ),
  SERVICE_INSTAGRAM_STANDALONE_WEBHOOK_SECRET: Str(
    'Provider webhooks: app secret that signs instagram_standalone deliveries; default SERVICE_INSTAGRAM_STANDALONE_CLIENT_SECRET.',
  ),
  SERVICE_THREADS_WEBHOOK_SECRET: Str(
    'Provider webhooks: Threads app secret that signs threads deliveries; default SERVICE_THREADS_CLIENT_SECRET.',
  ),
  SERVICE_X_WEBHOOK_SECRET: Str(
    'Provider webhooks: the X app consumer secret (API key secret) for the CRC answer and x-twitter-webhooks-signature; default SERVICE_X_CLIENT_SECRET.',
  ),
  SERVICE_X_WEBHOOK_APP_BEARER_TOKEN: Str(
    'Provider webhooks: X app-only bearer token used to register the Account Activity webhook (POST /2/webhooks). Unset: X provisioning is not configured.',
  ),
  SERVICE_YOUTUBE_WEBHOOK_SECRET: Str(
    'Provider webhooks: hub.secret of the YouTube PubSubHubbub subscriptions (X-Hub-Signature of deliveries); default derived from SERVICE_YOUTUBE_CLIENT_SECRET.',
  ),
  SERVICE_YOUTUBE_WEBSUB_HUB_URL: Str(
    'Provider webhooks: subscribe URL of the WebSub hub YouTube publishes through; default https://pubsubhubbub.appspot.com/subscribe (the loopback simulator in sandbox mode).',
  ),
  SERVICE_YOUTUBE_WEBSUB_LEASE_SECONDS: Int(
    432_000,
    'Provider webhooks: lease asked for each YouTube channel feed subscription (renew by provisioning again before it ends).',
    3_600,
    864_000,
  ),

  // batches: its settings go here

  // webhooks: its settings go here
  SERVICE_WEBHOOK_RETRY_DELAY_PERCENT: Int(
    100,
    'Webhooks: scales the retry schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) in percent; tests use 1 or less.',
    0,
    1000,
  ),
  SERVICE_WEBHOOK_TIMEOUT_MS: Int(15_000, 'Webhooks: timeout of one delivery attempt.', 100, 60_000),
  SERVICE_WEBHOOK_ENDPOINT_CONCURRENCY: Int(
    4,
    'Webhooks: deliveries to one endpoint in flight at once (across workers sharing REDIS_URL; per worker without it).',
    1,
    64,
  ),
  SERVICE_WEBHOOK_WORKER_CONCURRENCY: Int(32, 'Webhooks: deliveries one worker process sends at once (all endpoints).', 1, 256),
  SERVICE_WEBHOOK_DISABLE_AFTER_HOURS: Int(120, 'Webhooks: an endpoint failing without a single success this long is disabled.', 1),
  SERVICE_WEBHOOK_RETENTION_DAYS: Int(
    30,
    'Webhooks: days a finished delivery and its attempts are kept in the delivery log (pending ones stay; pruned by the maintenance job).',
    1,
  ),
  ...RETENTION_SETTINGS,

  // engagement: its settings go here
  SERVICE_LLM_BASE_URL: Str(
    'Reply drafts: base URL of an OpenAI-compatible API (POST {base}/chat/completions), e.g. https://api.openai.com/v1.',
  ),
  SERVICE_LLM_API_KEY: Str('Reply drafts: bearer key of that API (never logged).'),
  SERVICE_LLM_MODEL: Str('Reply drafts: model name sent to the chat completions endpoint.'),
  SERVICE_LLM_TIMEOUT_MS: Int(20_000, 'Reply drafts: timeout of one chat completions call.', 100, 120_000),
  SERVICE_ANALYTICS_SYNC_BUDGET_PER_PLATFORM: Int(
    50,
    'Analytics: most metrics reads per platform in one periodic sync run (every 10 minutes); X reads are further capped at 15.',
    0,
    10_000,
  ), // analytics

  // automations: its settings go here
  SERVICE_AUTOMATION_FEED_MAX_BYTES: Int(
    5_242_880,
    'Largest RSS/Atom feed document an automation fetches (bytes); a larger feed fails the run.',
    1024,
  ),
  SERVICE_AUTOMATION_FEED_TIMEOUT_MS: Int(15_000, 'Deadline for fetching one feed (connect, headers and body).', 100, 120_000),

  // hardening: its settings go here
  SERVICE_REQUEST_TIMEOUT_SECONDS: Int(
    300,
    'Longest time to receive a whole request (headers and body, e.g. a large upload); slower requests answer 408 and are closed.',
    1,
  ),
  SERVICE_CONNECTION_IDLE_TIMEOUT_SECONDS: Int(
    60,
    'A connection on which nothing arrives for this long (e.g. an upload cut off mid-body) is closed.',
    1,
  ),
  SERVICE_WORKER_METRICS_PORT: Int(
    0,
    'Port on which a `service-api worker` process serves GET /v1/internal/metrics (internal token); 0 = off. API processes serve it on PORT.',
    0,
    65535,
  ), // metrics
});

export type Env = Static<typeof EnvSchema>;

export interface Config {
  readonly env: Readonly<Env>;
  readonly embedded: boolean;
  readonly dataDir: string;
  readonly dbSocketPath: string;
  readonly publicBaseUrl: string;
  readonly publicApiOrigins: readonly string[] | null;
  /** tests only: addresses the guarded outbound client may reach (both allow-list settings, merged) */
  readonly outboundAllowAddresses: readonly string[];
  gateOpen(gate: FeatureGate): boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment (or a given record, in tests) into a frozen Config. */
export function loadConfig(source: Record<string, string | undefined> = process.env, overrides: Partial<Env> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const v = source[key];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  const converted = Value.Convert(EnvSchema, Value.Default(EnvSchema, raw)) as Record<string, unknown>;
  Object.assign(converted, overrides);
  const problems = [...Value.Errors(EnvSchema, converted)].map(
    (err) => `${err.path.replace(/^\//, '') || '(env)'}: ${err.message} (got ${JSON.stringify(err.value)})`,
  );
  if (problems.length > 0) throw new ConfigError(problems);
  const env = Object.freeze(converted as Env);
  const dataDir = path.resolve(env.SERVICE_DATA_DIR);
  const origins = env.SERVICE_PUBLIC_API_ORIGIN?.split(',')
    .map((o) => o.trim().replace(/\/+$/, '').toLowerCase())
    .filter(Boolean);
  return Object.freeze({
    env,
    embedded: !env.DATABASE_URL,
    dataDir,
    dbSocketPath: env.SERVICE_DB_SOCKET_PATH ?? path.join(dataDir, '.s.PGSQL.5432'),
    publicBaseUrl: (env.SERVICE_PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    publicApiOrigins: origins && origins.length > 0 ? origins : null,
    outboundAllowAddresses: Object.freeze(
      [env.SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS, env.SERVICE_MEDIA_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS]
        .flatMap((v) => (v ?? '').split(','))
        .map((s) => s.trim())
        .filter(Boolean),
    ),
    gateOpen: (gate: FeatureGate) => env[gate] !== false,
  });
}

/** Reads one platform's app settings from the environment record. */
export function providerEnv(config: Config, platform: Platform) {
  const k = envKey(platform);
  const get = (suffix: string) => (config.env as Record<string, unknown>)[`SERVICE_${k}_${suffix}`] as string | undefined;
  return {
    clientId: get('CLIENT_ID') ?? null,
    clientSecret: get('CLIENT_SECRET') ?? null,
    redirectUri: get('REDIRECT_URI') ?? `${config.publicBaseUrl}/v1/channel-accounts/oauth/callback/${platform}`,
    apiBaseUrl: get('API_BASE_URL') ?? null,
    authBaseUrl: get('AUTH_BASE_URL') ?? null,
    uploadBaseUrl: get('UPLOAD_BASE_URL') ?? null,
  };
}
