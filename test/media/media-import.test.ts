import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { IMPORT_BUDGET_DEFAULTS, ImportBudget } from '../../src/modules/media/media-import-budget.js';
import { selectStore } from '../../src/platform/counters/store-selection.js';
import { createTestContext, REAL_REDIS_URL, type TestContext } from '../support/harness.js';
import { fixture } from './media-helpers.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;

/** A remote media server on loopback; `/hold/*` answers only when released. */
class RemoteServer {
  server!: Server;
  port = 0;
  hits: string[] = [];
  private gate: { promise: Promise<void>; release: () => void } = RemoteServer.newGate();

  static newGate() {
    const gate: { promise?: Promise<void>; release: () => void } = { release: () => {} };
    gate.promise = new Promise<void>((resolve) => {
      gate.release = resolve;
    });
    return gate as { promise: Promise<void>; release: () => void };
  }

  async start() {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string) {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  hitsOf(prefix: string) {
    return this.hits.filter((h) => h.startsWith(prefix)).length;
  }

  release() {
    this.gate.release();
    this.gate = RemoteServer.newGate();
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://x');
    this.hits.push(url.pathname);
    const files: Record<string, string> = {
      '/img.png': 'sample.png',
      '/clip.mp4': 'sample.mp4',
      '/pic.bmp': 'sample.bmp',
      '/anim.gif': 'sample-animated.gif',
    };
    if (files[url.pathname]) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(fixture(files[url.pathname] as string));
    } else if (url.pathname === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
    } else if (url.pathname === '/big') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(fixture('sample.png'));
      for (let i = 0; i < 32; i++) res.write(Buffer.alloc(65536));
      res.end();
    } else if (url.pathname.startsWith('/hold/')) {
      await this.gate.promise;
      // a distinct file per hold path so concurrent imports do not dedup into each other
      res.writeHead(200).end(Buffer.concat([fixture('sample.png'), Buffer.from(url.pathname)]));
    } else {
      res.writeHead(404).end('not here');
    }
  }
}

describe('remote media import', () => {
  let ctx: TestContext;
  let strict: TestContext;
  const remote = new RemoteServer();
  let a: Org;

  before(async () => {
    await remote.start();
    ctx = await createTestContext({ env: { SERVICE_MEDIA_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32' } });
    strict = await createTestContext({ database: ctx.database, clock: ctx.clock });
    a = await ctx.createOrganization({ name: 'A' });
  });
  after(async () => {
    remote.release();
    await strict.close();
    await ctx.close();
    remote.server.closeAllConnections();
    remote.server.close();
  });

  const importMedia = (app: TestContext, org: Org, payload: Record<string, unknown>, remoteAddress = '192.0.2.1') =>
    app.app.inject({ method: 'POST', url: '/v1/media/import', headers: org.auth, payload, remoteAddress });

  it('a dry run is the default: it checks the URL and budgets and fetches nothing', async () => {
    const before = remote.hits.length;
    const res = await importMedia(ctx, a, { url: remote.url('/img.png') });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(Object.keys(res.json()).sort(), ['brandId', 'host', 'maxBytes', 'mode', 'notes', 'url', 'wouldImport']);
    assert.equal(res.json().mode, 'dry_run');
    assert.equal(res.json().wouldImport, true);
    assert.equal(res.json().maxBytes, 33_554_432);
    assert.equal(remote.hits.length, before);
    const list = (await ctx.app.inject({ method: 'GET', url: '/v1/media', headers: a.auth })).json();
    assert.equal(list.data.length, 0, 'nothing was stored');
  });

  it('imports, sniffs and stores; the same bytes again answer 200 with the existing item', async () => {
    const first = await importMedia(ctx, a, { url: `${remote.url('/clip.mp4')}?token=secret`, dryRun: false, altText: 'remote clip' });
    assert.equal(first.statusCode, 201, first.body);
    const item = first.json();
    assert.equal(item.mimeType, 'video/mp4');
    assert.equal(item.metadata.durationSeconds, 1);
    assert.equal(item.metadata.altText, 'remote clip');
    assert.equal(item.metadata.sourceUrl, remote.url('/clip.mp4'), 'the query string (possibly a token) is not kept');
    const viaRedirect = await importMedia(ctx, a, { url: remote.url(`/redirect?to=${encodeURIComponent('/clip.mp4')}`), dryRun: false });
    assert.equal(viaRedirect.statusCode, 200);
    assert.equal(viaRedirect.json().mediaLibraryItemId, item.mediaLibraryItemId);
  });

  it('refused URLs answer 400 media_import_url_refused with the reason, in dry runs and real imports, before any request', async () => {
    const cases: Array<[string, string, string?]> = [
      ['http://10.0.0.1/a.png', 'address_refused', 'private'],
      ['http://169.254.169.254/latest/meta-data/', 'address_refused', 'metadata'],
      ['http://100.64.0.1/a.png', 'address_refused', 'carrier_grade_nat'],
      ['http://[fe80::1]/a.png', 'address_refused', 'link_local'],
      ['ftp://example.com/a.png', 'scheme_not_allowed'],
      ['file:///etc/passwd', 'scheme_not_allowed'],
      ['not a url', 'url_invalid'],
    ];
    for (const dryRun of [true, false]) {
      for (const [url, reason, addressClass] of cases) {
        const res = await importMedia(ctx, a, { url, dryRun });
        assert.equal(res.statusCode, 400, url);
        assert.equal(res.json().error, 'media_import_url_refused');
        assert.equal(res.json().reason, reason, url);
        if (addressClass) assert.equal(res.json().addressClass, addressClass, url);
        assert.deepEqual(res.json().fields, [{ path: ['url'], source: 'body' }]);
      }
    }
  });

  it('without the test allow-list loopback is refused in every spelling, and the server is never contacted', async () => {
    const o = await strict.createOrganization();
    const before = remote.hits.length;
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '0177.0.0.1', '127.1', '[::ffff:127.0.0.1]', '[::1]', 'localhost.']) {
      for (const dryRun of [true, false]) {
        const res = await importMedia(strict, o, { url: `http://${host}:${remote.port}/img.png`, dryRun });
        assert.equal(res.statusCode, 400, host);
        assert.equal(res.json().error, 'media_import_url_refused');
        assert.ok(['address_refused', 'dns_failed'].includes(res.json().reason), host);
      }
    }
    assert.equal(remote.hits.length, before);
  });

  it('a redirect from an allowed host to a refused one is stopped at the redirect', async () => {
    for (const target of [
      'http://169.254.169.254/latest/meta-data/',
      `http://127.0.0.2:${remote.port}/img.png`,
      `http://[::ffff:7f00:2]:${remote.port}/img.png`,
      'http://10.1.2.3/x',
    ]) {
      const before = remote.hitsOf('/redirect');
      const res = await importMedia(ctx, a, { url: remote.url(`/redirect?to=${encodeURIComponent(target)}`), dryRun: false });
      assert.equal(res.statusCode, 400, target);
      assert.equal(res.json().error, 'media_import_url_refused');
      assert.equal(res.json().reason, 'address_refused');
      assert.equal(remote.hitsOf('/redirect'), before + 1);
    }
  });

  it('maxBytes bounds the download (400 media_file_too_large) and is validated (1..33554432)', async () => {
    const big = await importMedia(ctx, a, { url: remote.url('/big'), dryRun: false, maxBytes: 100_000 });
    assert.equal(big.statusCode, 400);
    assert.equal(big.json().error, 'media_file_too_large');
    for (const maxBytes of [0, 33_554_433]) {
      const res = await importMedia(ctx, a, { url: remote.url('/img.png'), maxBytes });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_public_media_upload_request');
      assert.deepEqual(res.json().fields[0].path, ['maxBytes']);
    }
  });

  it('remote failures and unsupported types', async () => {
    const missing = await importMedia(ctx, a, { url: remote.url('/missing'), dryRun: false });
    assert.equal(missing.statusCode, 502);
    assert.equal(missing.json().error, 'media_import_fetch_failed');
    assert.equal(missing.json().remoteStatus, 404);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await importMedia(ctx, a, { url: `http://127.0.0.1:${closedPort}/a.png`, dryRun: false });
    assert.equal(unreachable.statusCode, 502);
    assert.equal(unreachable.json().error, 'media_import_fetch_failed');
    assert.equal(unreachable.json().reason, 'connect_failed');
    const bmp = await importMedia(ctx, a, { url: remote.url('/pic.bmp'), dryRun: false });
    assert.equal(bmp.statusCode, 400);
    assert.equal(bmp.json().error, 'invalid_public_media_upload_request');
    // an unknown brand answers like another organization's brand: the route's 404, nothing to tell them apart
    const brand = await importMedia(ctx, a, { url: remote.url('/img.png'), dryRun: false, brandId: 'brd_unknown' });
    assert.equal(brand.statusCode, 404);
    assert.equal(brand.json().error, 'brand_not_found');
  });

  describe('budgets (defaults of the specification)', () => {
    const aligned = Date.UTC(2031, 0, 1, 0, 0, 10);
    const budgetOf = () =>
      new ImportBudget(
        () => selectStore(undefined, ctx.deps.counters),
        () => ctx.clock.now().getTime(),
      );

    it('uses exactly the table of the specification', () => {
      assert.deepEqual(IMPORT_BUDGET_DEFAULTS, {
        perAddress: { limit: 30, windowSeconds: 60 },
        perPrincipal: { limit: 20, windowSeconds: 3600 },
        bytesPerOrganization: { limit: 268_435_456, windowSeconds: 3600 },
        concurrencyGlobal: 8,
        concurrencyPerOrganization: 2,
        leaseSeconds: 75,
      });
    });

    it('30 requests per 60 s per client address, then 429 with Retry-After to the window end', async () => {
      ctx.clock.set(aligned);
      const keys = [await ctx.createOrganization(), await ctx.createOrganization()];
      for (let i = 0; i < 30; i++) {
        const res = await importMedia(ctx, keys[i % 2] as Org, { url: remote.url('/missing'), dryRun: false }, '198.51.100.30');
        assert.equal(res.statusCode, 502, `request ${i + 1}`);
      }
      const refused = await importMedia(ctx, keys[0] as Org, { url: remote.url('/missing'), dryRun: false }, '198.51.100.30');
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().error, 'public_api_rate_limited');
      assert.equal(refused.json().budget, 'client_address');
      assert.equal(refused.headers['retry-after'], '50');
      const dry = await importMedia(ctx, keys[1] as Org, { url: remote.url('/img.png') }, '198.51.100.30');
      assert.equal(dry.statusCode, 429, 'a dry run reports the refusal too');
      const elsewhere = await importMedia(ctx, keys[0] as Org, { url: remote.url('/missing'), dryRun: false }, '198.51.100.31');
      assert.equal(elsewhere.statusCode, 502, 'another address has its own budget');
      ctx.clock.advance(50_000);
      const nextWindow = await importMedia(ctx, keys[1] as Org, { url: remote.url('/missing'), dryRun: false }, '198.51.100.30');
      assert.equal(nextWindow.statusCode, 502);
    });

    it('20 requests per 3600 s per principal', async () => {
      ctx.clock.set(aligned);
      const p = await ctx.createOrganization();
      for (let i = 0; i < 20; i++) {
        const res = await importMedia(ctx, p, { url: remote.url('/missing'), dryRun: false }, `203.0.113.${i + 1}`);
        assert.equal(res.statusCode, 502);
      }
      const refused = await importMedia(ctx, p, { url: remote.url('/missing'), dryRun: false }, '203.0.113.99');
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().budget, 'principal');
      assert.equal(refused.headers['retry-after'], '3590');
      const dryRunsAreFree = await importMedia(
        ctx,
        (await ctx.createOrganization()) as Org,
        { url: remote.url('/img.png') },
        '203.0.113.99',
      );
      assert.equal(dryRunsAreFree.statusCode, 200);
    });

    it('268435456 bytes per organization per 3600 s, counting other processes and reserving maxBytes in flight', async () => {
      ctx.clock.set(aligned);
      const o = await ctx.createOrganization();
      // another process already imported all but 1000 bytes of this organization's hourly budget
      const other = await budgetOf().admit(
        { clientAddress: '192.0.2.200', principalKey: 'api_key:elsewhere', organizationId: o.organizationId },
        268_435_456 - 1000,
      );
      await other.settle(268_435_456 - 1000);
      const tooMuch = await importMedia(ctx, o, { url: remote.url('/img.png'), dryRun: false, maxBytes: 2000 }, '192.0.2.201');
      assert.equal(tooMuch.statusCode, 429);
      assert.equal(tooMuch.json().budget, 'organization_bytes');
      assert.equal(tooMuch.headers['retry-after'], '3590');
      const fits = await importMedia(ctx, o, { url: remote.url('/img.png'), dryRun: false, maxBytes: 900 }, '192.0.2.201');
      assert.equal(fits.statusCode, 201, fits.body);
      // 275 bytes were used, the rest of the 900 reserved was returned: 725 remain
      assert.equal((await importMedia(ctx, o, { url: remote.url('/anim.gif'), maxBytes: 725 }, '192.0.2.202')).statusCode, 200);
      assert.equal((await importMedia(ctx, o, { url: remote.url('/anim.gif'), maxBytes: 726 }, '192.0.2.202')).statusCode, 429);
    });

    it('2 concurrent imports per organization and 8 in total; slots free when imports end', async () => {
      ctx.clock.set(aligned + 3_600_000);
      const orgs = await Promise.all([1, 2, 3, 4, 5].map(() => ctx.createOrganization()));
      const [o1, o2, o3, o4, o5] = orgs as [Org, Org, Org, Org, Org];
      const holds: Array<Promise<{ statusCode: number }>> = [];
      const hold = (org: Org, n: string) => {
        const p = importMedia(ctx, org, { url: remote.url(`/hold/${n}`), dryRun: false }, `192.0.2.${holds.length + 50}`);
        holds.push(p);
      };
      hold(o1, 'a1');
      hold(o1, 'a2');
      await waitUntil(() => remote.hitsOf('/hold/') >= 2);
      const third = await importMedia(ctx, o1, { url: remote.url('/img.png'), dryRun: false }, '192.0.2.90');
      assert.equal(third.statusCode, 429);
      assert.equal(third.json().budget, 'concurrency_organization');
      assert.equal(third.headers['retry-after'], '5');
      for (const [org, tag] of [
        [o2, 'b'],
        [o3, 'c'],
        [o4, 'd'],
      ] as const) {
        hold(org, `${tag}1`);
        hold(org, `${tag}2`);
      }
      await waitUntil(() => remote.hitsOf('/hold/') >= 8);
      const ninth = await importMedia(ctx, o5, { url: remote.url('/img.png'), dryRun: false }, '192.0.2.91');
      assert.equal(ninth.statusCode, 429);
      assert.equal(ninth.json().budget, 'concurrency_global');
      remote.release();
      const done = await Promise.all(holds);
      assert.deepEqual(
        done.map((r) => r.statusCode),
        Array(8).fill(201),
      );
      const after = await importMedia(ctx, o5, { url: remote.url('/img.png'), dryRun: false }, '192.0.2.92');
      assert.equal(after.statusCode, 201);
    });

    it('a crashed import frees its slot when its 75 s lease ends', async () => {
      ctx.clock.set(aligned + 7_200_000);
      const o = await ctx.createOrganization();
      const caller = { clientAddress: '192.0.2.210', principalKey: 'api_key:crashed', organizationId: o.organizationId };
      // two imports of another process that died without releasing their slots
      await budgetOf().admit(caller, 1000);
      await budgetOf().admit(caller, 1000);
      const blocked = await importMedia(ctx, o, { url: remote.url('/img.png'), dryRun: false }, '192.0.2.211');
      assert.equal(blocked.statusCode, 429);
      assert.equal(blocked.json().budget, 'concurrency_organization');
      ctx.clock.advance(74_000);
      assert.equal((await importMedia(ctx, o, { url: remote.url('/img.png'), dryRun: false }, '192.0.2.212')).statusCode, 429);
      ctx.clock.advance(1_001);
      const freed = await importMedia(ctx, o, { url: remote.url('/img.png'), dryRun: false }, '192.0.2.213');
      assert.equal(freed.statusCode, 201, freed.body);
    });

    it('with the redis store two API processes draw from one budget', { skip: REAL_REDIS_URL === null }, async () => {
      const prefix = `media-shared-${Date.now()}`;
      const env = { SERVICE_REMOTE_MEDIA_IMPORT_BUDGET_STORE: 'redis', SERVICE_MEDIA_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32' };
      const one = await createTestContext({ database: ctx.database, clock: ctx.clock, redisPrefix: prefix, env });
      const two = await createTestContext({ database: ctx.database, clock: ctx.clock, redisPrefix: prefix, env });
      try {
        ctx.clock.set(aligned + 10_800_000);
        const o = await one.createOrganization();
        // per principal: 20 attempts spread over both processes, the 21st is refused by either
        for (let i = 0; i < 20; i++) {
          const res = await importMedia(i % 2 ? two : one, o, { url: remote.url('/missing'), dryRun: false }, `198.18.0.${i + 1}`);
          assert.equal(res.statusCode, 502);
        }
        const refused = await importMedia(two, o, { url: remote.url('/missing'), dryRun: false }, '198.18.1.1');
        assert.equal(refused.statusCode, 429);
        assert.equal(refused.json().budget, 'principal');
        // per organization concurrency: two imports held in one process block a third in the other
        const p = await one.createOrganization();
        const held = [
          importMedia(one, p, { url: remote.url('/hold/r1'), dryRun: false }, '198.18.2.1'),
          importMedia(one, p, { url: remote.url('/hold/r2'), dryRun: false }, '198.18.2.2'),
        ];
        await waitUntil(() => remote.hitsOf('/hold/r') >= 2);
        const third = await importMedia(two, p, { url: remote.url('/img.png'), dryRun: false }, '198.18.2.3');
        assert.equal(third.statusCode, 429);
        assert.equal(third.json().budget, 'concurrency_organization');
        remote.release();
        assert.deepEqual(
          (await Promise.all(held)).map((r) => r.statusCode),
          [201, 201],
        );
      } finally {
        remote.release();
        await one.close();
        await two.close();
      }
    });

    it('SERVICE_REMOTE_MEDIA_IMPORT_BUDGET_STORE=redis without REDIS_URL answers 400 redis_url_required', {
      skip: REAL_REDIS_URL !== null,
    }, async () => {
      const shared = await createTestContext({
        database: ctx.database,
        clock: ctx.clock,
        env: { SERVICE_REMOTE_MEDIA_IMPORT_BUDGET_STORE: 'redis', SERVICE_MEDIA_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1' },
      });
      try {
        const o = await shared.createOrganization();
        const res = await importMedia(shared, o, { url: remote.url('/img.png') });
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().error, 'redis_url_required');
        const bad = await createTestContext({ database: ctx.database, env: { SERVICE_REMOTE_MEDIA_IMPORT_BUDGET_STORE: 'disk' } });
        try {
          const r = await importMedia(bad, await bad.createOrganization(), { url: 'https://93.184.215.14/a.png' });
          assert.equal(r.json().error, 'invalid_public_api_rate_limit_store');
        } finally {
          await bad.close();
        }
      } finally {
        await shared.close();
      }
    });
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) assert.fail('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
