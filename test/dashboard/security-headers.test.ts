/**
 * The dashboard's security headers: a Content-Security-Policy that forbids framing and any script or
 * style from elsewhere, plus X-Frame-Options, nosniff, Referrer-Policy and the rest, on every answer
 * under /app/. In Chromium: a page of another origin cannot frame /app/, and the API docs page
 * (/v1/docs, swagger UI, not under the dashboard's policy) still renders the operations.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { createTestContext, type TestContext } from '../support/harness.js';
import { freePort } from '../support/service-process.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureWebBuild } from './support.js';

const directives = (csp: string) =>
  new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k!, v]),
  );

describe('dashboard security headers', () => {
  let ctx: TestContext;
  let base: string;
  before(async () => {
    ensureWebBuild();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ env: { SERVICE_PUBLIC_BASE_URL: base } });
    await ctx.app.listen({ host: '127.0.0.1', port });
  });
  after(async () => ctx?.close());

  it('sends the policy and the usual headers on the shell, client routes, assets, 404s and the /app redirect', async () => {
    const shell = await ctx.app.inject({ url: '/app/' });
    const asset = [...shell.body.matchAll(/src="(\/app\/assets\/[^"]+\.js)"/g)][0]![1]!;
    for (const url of ['/app/', '/app/calendar/week', asset, '/app/assets/missing-1234.js', '/app']) {
      const res = await ctx.app.inject({ url });
      const h = res.headers;
      const csp = directives(String(h['content-security-policy'] ?? ''));
      assert.deepEqual(csp.get('frame-ancestors'), ["'none'"], url);
      assert.deepEqual(csp.get('script-src'), ["'self'"], `${url}: no inline or remote script`);
      assert.deepEqual(csp.get('style-src'), ["'self'"], `${url}: no inline or remote style`);
      assert.deepEqual(csp.get('default-src'), ["'none'"], url);
      assert.deepEqual(csp.get('object-src'), ["'none'"], url);
      assert.deepEqual(csp.get('base-uri'), ["'none'"], url);
      assert.equal(h['x-frame-options'], 'DENY', url);
      assert.equal(h['x-content-type-options'], 'nosniff', url);
      assert.equal(h['referrer-policy'], 'no-referrer', url);
      assert.equal(h['cross-origin-opener-policy'], 'same-origin', url);
      assert.ok(h['permissions-policy'], url);
      assert.equal(h['strict-transport-security'], undefined, `${url}: no HSTS over plain http`);
    }
  });

  it('the built shell has no inline script or style the policy would refuse', async () => {
    const shell = await ctx.app.inject({ url: '/app/' });
    assert.doesNotMatch(shell.body, /<script(?![^>]*\bsrc=)[^>]*>/i, 'inline script');
    assert.doesNotMatch(shell.body, /<style\b|\sstyle=/i, 'inline style');
  });

  it('adds HSTS when the request came over https (behind a proxy that says so)', async () => {
    const proxied = await createTestContext({ env: { SERVICE_TRUST_PROXY: 'true' } });
    try {
      const res = await proxied.app.inject({ url: '/app/', headers: { 'x-forwarded-proto': 'https' } });
      assert.match(String(res.headers['strict-transport-security']), /max-age=\d+/);
    } finally {
      await proxied.close();
    }
  });

  it('leaves the API and its docs page alone', async () => {
    const api = await ctx.app.inject({ url: '/v1/brands' });
    assert.equal(api.headers['x-frame-options'], undefined);
    const docs = await ctx.app.inject({ url: '/v1/docs/' });
    assert.equal(docs.statusCode, 200);
    assert.doesNotMatch(String(docs.headers['content-security-policy'] ?? ''), /script-src 'self'(;|$)/);
  });

  describe('in Chromium', { skip: CHROMIUM ? false : 'chromium not installed' }, () => {
    let browser: Browser;
    let framer: http.Server;
    let framerBase: string;
    before(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM!, args: CHROMIUM_ARGS });
      // another origin (another port) that tries to frame the dashboard
      framer = http.createServer((_req, res) => {
        res.setHeader('content-type', 'text/html');
        res.end(`<!doctype html><iframe id="f" src="${base}/app/" width="800" height="600"></iframe>`);
      });
      await new Promise<void>((r) => framer.listen(0, '127.0.0.1', r));
      framerBase = `http://127.0.0.1:${(framer.address() as AddressInfo).port}`;
    });
    after(async () => {
      await browser?.close();
      await new Promise((r) => framer?.close(r));
    });

    it('refuses to render /app/ inside a page of another origin', async () => {
      const page = await browser.newPage();
      await page.goto(framerBase);
      await page.waitForTimeout(1500);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      const rendered = frame
        ? await frame
            .locator('#root')
            .count()
            .catch(() => 0)
        : 0;
      assert.equal(rendered, 0, 'the dashboard rendered inside the frame');
      await page.close();
    });

    it('renders the dashboard itself and the swagger UI of /v1/docs', async () => {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
      });
      await page.goto(`${base}/app/`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: 10_000 });
      await page.goto(`${base}/v1/docs`);
      // the document is large and Swagger UI renders it on the client: a loaded CI host needs more than a few seconds
      await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
      assert.ok((await page.locator('.opblock').count()) > 10, 'the docs list the operations');
      assert.deepEqual(violations, []);
      await page.close();
    });
  });
});
