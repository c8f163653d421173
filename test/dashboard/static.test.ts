import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createTestContext, type TestContext } from '../support/harness.js';
import { ensureWebBuild, FIRST_LOAD_JS_BUDGET } from './support.js';

describe('dashboard static build at /app/', () => {
  let ctx: TestContext;
  before(async () => {
    ensureWebBuild();
    ctx = await createTestContext();
  });
  after(async () => ctx?.close());

  it('/ redirects to /app/ and /app/ answers the app shell without caching', async () => {
    const root = await ctx.app.inject({ url: '/' });
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/app/');
    const shell = await ctx.app.inject({ url: '/app/' });
    assert.equal(shell.statusCode, 200);
    assert.match(String(shell.headers['content-type']), /^text\/html/);
    assert.equal(shell.headers['cache-control'], 'no-cache');
    assert.match(shell.body, /<div id="root"><\/div>/);
  });

  it('serves hashed assets with their type and a long cache; first-load JS stays under 300 KB gzipped', async () => {
    const shell = await ctx.app.inject({ url: '/app/' });
    const assets = [...shell.body.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.some((a) => a.endsWith('.js')));
    let jsGzip = 0;
    for (const url of assets) {
      const res = await ctx.app.inject({ url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      if (url.endsWith('.js')) {
        assert.match(String(res.headers['content-type']), /^text\/javascript/);
        jsGzip += gzipSync(res.rawPayload).length;
      }
      if (url.endsWith('.css')) assert.match(String(res.headers['content-type']), /^text\/css/);
      // no request to any other host
      assert.doesNotMatch(res.body, /https?:\/\/(?:fonts\.googleapis|fonts\.gstatic|cdn\.|unpkg|jsdelivr)/);
    }
    assert.ok(jsGzip < FIRST_LOAD_JS_BUDGET, `first-load JS ${jsGzip} bytes gzipped`);
    console.log(`first load of /app/: ${(jsGzip / 1024).toFixed(1)} KB of gzipped JavaScript (budget ${FIRST_LOAD_JS_BUDGET / 1024} KB)`);
    // the product's icon
    assert.match(shell.body, /<link rel="icon" href="\/app\/favicon.svg"/);
    const icon = await ctx.app.inject({ url: '/app/favicon.svg' });
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['content-type'], 'image/svg+xml');
  });

  it('falls back to index.html for client routes, 404s missing assets, never leaves the build folder', async () => {
    const route = await ctx.app.inject({ url: '/app/calendar/week' });
    assert.equal(route.statusCode, 200);
    assert.match(route.body, /<div id="root">/);
    assert.equal((await ctx.app.inject({ url: '/app/assets/missing-1234.js' })).statusCode, 404);
    for (const url of [
      '/app/../package.json',
      '/app/%2e%2e/package.json',
      '/app/..%2f..%2fpackage.json',
      '/app/%2e%2e%2f%2e%2e%2fsrc%2fapp.ts',
    ]) {
      const res = await ctx.app.inject({ url });
      assert.doesNotMatch(res.body, /"name": "service-api"|buildApp/, url);
    }
  });

  it('the API keeps answering JSON errors beside the dashboard', async () => {
    const res = await ctx.app.inject({ url: '/v1/brands' });
    assert.equal(res.statusCode, 401);
    assert.match(String(res.headers['content-type']), /application\/json/);
  });
});
