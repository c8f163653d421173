import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent, fetch as undiciFetch } from 'undici';
import { BIN, freePort, SOURCE_BIN } from '../support/service-process.js';

// CLI calls between two requests can outlast the server's keep-alive timeout on a loaded machine, and a
// pooled socket closed by the server meanwhile fails the next request: each request gets its own connection.
const fetch = (url: string, init: { headers?: Record<string, string>; redirect?: 'manual' } = {}) =>
  undiciFetch(url, { ...init, dispatcher: new Agent({ keepAliveTimeout: 10, keepAliveMaxTimeout: 10 }) });

describe('service-api CLI next to a running embedded server', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-api-cli-'));
  let port: number;
  let server: ChildProcess;
  let serverLog = '';
  const env = () => {
    const e: Record<string, string> = {
      ...(process.env as Record<string, string>),
      SERVICE_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SERVICE_LOG_LEVEL: 'info',
    };
    delete e.DATABASE_URL;
    delete e.REDIS_URL;
    return e;
  };
  const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env: env(), encoding: 'utf8', timeout: 60_000 });

  before(async () => {
    port = await freePort();
    // the server starts as a user starts it (bin/service-api.mjs); the commands run the test run's bundle
    server = spawn(process.execPath, [SOURCE_BIN, 'start'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    // a file that times out ends without its after hooks: the server must not outlive it
    process.once('exit', () => server.exitCode === null && server.kill('SIGKILL'));
    server.stdout!.on('data', (d) => (serverLog += d));
    server.stderr!.on('data', (d) => (serverLog += d));
    const deadline = Date.now() + 180_000; // a loaded machine: the first start creates the database
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/v1/health/live`);
        if (res.ok) break;
      } catch {}
      assert.ok(Date.now() < deadline, `server did not start:\n${serverLog}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  after(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  let boot: { organizationId: string; userId: string; apiKey: string };

  it('prints how to bootstrap on the first start with an empty database', () => {
    assert.match(serverLog, /service-api bootstrap --organization/);
  });

  it('shows its progress while the embedded database is created, then a banner with URL, mode and docs', () => {
    assert.match(serverLog, /^starting: creating the embedded database in .*service-api-cli-.* \(first start/m);
    assert.match(serverLog, /^starting: applying database migrations/m);
    assert.match(serverLog, new RegExp(`^  URL +http://localhost:${port} +\\(listening on http://127\\.0\\.0\\.1:${port}\\)$`, 'm'));
    assert.match(serverLog, /^ {2}mode +embedded \(one process, no other services\)$/m);
    assert.match(serverLog, new RegExp(`^  API docs +http://localhost:${port}/v1/docs`, 'm'));
    assert.match(serverLog, /^ {2}dashboard +http:\/\/localhost:\d+\/app\/$/m);
  });

  it('GET / sends a browser to the dashboard and tells a script where the docs are', async () => {
    const browser = await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'text/html' }, redirect: 'manual' } as never);
    assert.equal(browser.status, 302);
    assert.equal(browser.headers.get('location'), '/app/');
    assert.match(String(browser.headers.get('link')), /<\/v1\/docs>; rel="service-doc"/);
    const script = await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'application/json' } });
    assert.equal(script.status, 200);
    assert.deepEqual(await script.json(), {
      dashboard: '/app/',
      docs: '/v1/docs',
      openapi: '/v1/openapi.json',
      health: '/v1/health/ready',
    });
  });

  it("bootstrap creates organization, owner and an all-scope key through the running server's database", async () => {
    const res = cli('bootstrap', '--organization', 'Acme', '--email', 'admin@acme.test', '--password', 'correct horse', '--json');
    assert.equal(res.status, 0, res.stderr);
    boot = JSON.parse(res.stdout);
    assert.deepEqual(Object.keys(boot).sort(), ['apiKey', 'organizationId', 'userId']);
    assert.match(boot.organizationId, /^org_/);
    const brands = await fetch(`http://127.0.0.1:${port}/v1/brands`, { headers: { authorization: `Bearer ${boot.apiKey}` } });
    assert.equal(brands.status, 200);
    assert.doesNotMatch(serverLog, new RegExp(boot.apiKey), 'the secret must never be logged');
  });

  it('brands, products and api-keys commands work and their data is served', async () => {
    const brand = cli(
      'brands',
      'create',
      '--organization',
      boot.organizationId,
      '--name',
      'Acme Shoes',
      '--timezone',
      'Europe/Berlin',
      '--json',
    );
    assert.equal(brand.status, 0, brand.stderr);
    const brandId = JSON.parse(brand.stdout).brandId;
    const product = cli(
      'products',
      'create',
      '--brand',
      brandId,
      '--name',
      'Red Shoe',
      '--product-url',
      'https://shop.test/red',
      '--store-product-id',
      'sku-1',
      '--json',
    );
    assert.equal(product.status, 0, product.stderr);
    const key = cli('api-keys', 'create', '--organization', boot.organizationId, '--scopes', 'brands:read', '--name', 'reader', '--json');
    assert.equal(key.status, 0, key.stderr);
    const { apiKey, scopes } = JSON.parse(key.stdout);
    assert.deepEqual(scopes, ['brands:read']);
    const res = await fetch(`http://127.0.0.1:${port}/v1/brands/${brandId}`, { headers: { authorization: `Bearer ${apiKey}` } });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { timezone: string; products: Array<{ storeProductId: string }> };
    assert.equal(body.timezone, 'Europe/Berlin');
    assert.equal(body.products[0]?.storeProductId, 'sku-1');
  });

  it('lists what it created (table and --json) and revokes an API key, which the server then refuses', async () => {
    const orgs = JSON.parse(cli('organizations', 'list', '--json').stdout) as Array<{ organizationId: string; brands: number }>;
    assert.deepEqual(
      orgs.map((o) => [o.organizationId, Number(o.brands)]),
      [[boot.organizationId, 1]],
    );
    const table = cli('brands', 'list', '--organization', boot.organizationId);
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /^brandId\s+name\s+slug/m);
    assert.match(table.stdout, /Acme Shoes/);
    const brandId = (
      JSON.parse(cli('brands', 'list', '--organization', boot.organizationId, '--json').stdout) as Array<{ brandId: string }>
    )[0]!.brandId;
    const products = JSON.parse(cli('products', 'list', '--brand', brandId, '--json').stdout) as Array<{ storeProductId: string }>;
    assert.deepEqual(
      products.map((p) => p.storeProductId),
      ['sku-1'],
    );
    const created = JSON.parse(cli('api-keys', 'create', '--organization', boot.organizationId, '--name', 'temp', '--json').stdout);
    const keys = JSON.parse(cli('api-keys', 'list', '--organization', boot.organizationId, '--json').stdout) as Array<
      Record<string, unknown>
    >;
    const temp = keys.find((k) => k.name === 'temp')!;
    assert.equal(temp.state, 'active');
    assert.ok(!JSON.stringify(keys).includes(created.apiKey), 'listing never shows a secret');
    assert.equal(cli('api-keys', 'revoke', '--organization', boot.organizationId, '--key', String(temp.apiKeyId)).status, 0);
    const refused = await fetch(`http://127.0.0.1:${port}/v1/brands`, { headers: { authorization: `Bearer ${created.apiKey}` } });
    assert.equal(refused.status, 401);
    assert.equal(cli('channels', 'list', '--organization', boot.organizationId).stdout.trim(), '(none)');
    assert.deepEqual(JSON.parse(cli('jobs', 'list', '--organization', boot.organizationId, '--json').stdout), []);
    assert.equal(cli('jobs', 'show', '--organization', boot.organizationId, '--job', 'pjob_missing').status, 1);
  });

  it('SIGTERM stops the server gracefully and removes the socket', async () => {
    server.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => server.once('exit', (c) => resolve(c)));
    assert.equal(code, 0, serverLog);
    assert.equal(fs.existsSync(path.join(dataDir, '.s.PGSQL.5432')), false);
    // with the server gone the CLI opens the embedded database itself
    const res = cli('brands', 'create', '--organization', boot.organizationId, '--name', 'Offline Brand', '--json');
    assert.equal(res.status, 0, res.stderr);
  });
});
