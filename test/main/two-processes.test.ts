import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { freshPostgres, REAL_DATABASE_URL, REAL_REDIS_URL } from '../support/harness.js';
import { BIN, freePort } from '../support/service-process.js';

describe('two API processes on PostgreSQL and Redis', {
  skip: REAL_DATABASE_URL && REAL_REDIS_URL ? false : 'needs DATABASE_URL and REDIS_URL',
}, () => {
  const procs: ChildProcess[] = [];
  const ports: number[] = [];
  let drop: () => Promise<void>;
  let env: Record<string, string>;

  before(async () => {
    const db = await freshPostgres(REAL_DATABASE_URL!);
    drop = db.drop;
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: db.url,
      REDIS_URL: REAL_REDIS_URL!,
      HOST: '127.0.0.1',
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS: '5',
      SERVICE_PUBLIC_API_RATE_LIMIT_WINDOW_SECONDS: '3600',
    };
    const migrate = spawnSync(process.execPath, [BIN, 'migrate'], { env, encoding: 'utf8' });
    assert.equal(migrate.status, 0, migrate.stderr);
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      ports.push(port);
      procs.push(spawn(process.execPath, [BIN, 'api'], { env: { ...env, PORT: String(port) }, stdio: 'ignore' }));
    }
    for (const port of ports) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/v1/health/live`)).ok) break;
        } catch {}
        assert.ok(Date.now() < deadline, 'api process did not start');
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  });

  after(async () => {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
    await drop?.();
  });

  it('share one rate-limit budget per principal', async () => {
    const boot = spawnSync(
      process.execPath,
      [BIN, 'bootstrap', '--organization', 'Two', '--email', `two-${Date.now()}@example.test`, '--password', 'correct horse', '--json'],
      { env, encoding: 'utf8' },
    );
    assert.equal(boot.status, 0, boot.stderr);
    const { apiKey } = JSON.parse(boot.stdout);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`http://127.0.0.1:${ports[i % 2]}/v1/brands`, { headers: { authorization: `Bearer ${apiKey}` } });
      statuses.push(res.status);
      if (res.status === 429) {
        assert.ok(Number(res.headers.get('retry-after')) > 0);
        assert.equal(((await res.json()) as { error: string }).error, 'public_api_rate_limited');
      } else await res.arrayBuffer();
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
  });
});
