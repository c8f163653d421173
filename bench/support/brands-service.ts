/**
 * The service the API benchmarks measure (bench/api-hot-path-server.ts, bench/overhead-run.ts): the real
 * runtime on a temporary data directory (embedded PGlite, or DATABASE_URL), with a public rate limit high
 * enough that the rounds measure the limiter's work rather than 429 answers, and an organization with 20
 * brands and an API key for `GET /v1/brands`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { type Runtime, startRuntime } from '../../src/main/runtime.js';
import { BrandsService } from '../../src/modules/brands/brands.service.js';
import { IdentityService } from '../../src/modules/identity/identity.service.js';

export interface BrandsBenchService {
  runtime: Runtime;
  embedded: boolean;
  brands: BrandsService;
  organizationId: string;
  apiKey: string;
  /** stops the runtime and removes its data directory */
  stop(): Promise<void>;
}

/** `role` as for `service-api`: 'api' for an API-only process, 'all' for API and worker in one. */
export async function startBrandsBenchService(role: (embedded: boolean) => 'api' | 'all'): Promise<BrandsBenchService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-api-bench-'));
  const config = loadConfig({
    ...process.env,
    SERVICE_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    SERVICE_LOG_LEVEL: 'warn',
    SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS: '100000000',
  });
  const runtime = await startRuntime(config, role(config.embedded));
  const db = runtime.deps.database.db;
  // a PostgreSQL database outlives the run: this run's user has a name of its own
  const boot = await new IdentityService(db).bootstrap(
    { organization: 'Bench', email: `bench-${Date.now().toString(36)}@example.test`, password: 'correct horse' },
    new Date(),
  );
  const brands = new BrandsService(db);
  for (let i = 0; i < 20; i++) await brands.create(boot.organizationId, { name: `Brand ${i}` }, new Date());
  return {
    runtime,
    embedded: config.embedded,
    brands,
    organizationId: boot.organizationId,
    apiKey: boot.apiKey,
    stop: async () => {
      await runtime.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
