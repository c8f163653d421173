/**
 * Facebook post insights on a Graph version that does not know the media-view metrics yet: the adapter
 * asks again for the deprecated impression metrics and reports them under the same names. The Graph
 * host is a loopback fake that refuses the successors with error #100, as Graph does for unknown metrics.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createFacebookPageProvider } from '../../src/providers/facebook-page/facebook-page.provider.js';

describe('analytics: facebook_page deprecated impressions', () => {
  let server: Server;
  let base: string;
  const asked: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const metric = url.searchParams.get('metric') ?? '';
      asked.push(metric);
      res.setHeader('content-type', 'application/json');
      if (metric.includes('post_media_view')) {
        res.writeHead(400).end(
          JSON.stringify({
            error: { message: '(#100) The value must be a valid insights metric', type: 'OAuthException', code: 100, fbtrace_id: 'A' },
          }),
        );
        return;
      }
      const row = (name: string, value: unknown) => ({ name, period: 'lifetime', values: [{ value }], id: `p/insights/${name}/lifetime` });
      res.writeHead(200).end(
        JSON.stringify({
          data: [
            row('post_impressions', 500),
            row('post_impressions_unique', 320),
            row('post_reactions_by_type_total', { like: 4, love: 2 }),
          ],
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v19.0`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('maps post_impressions to views and leaves an unreported metric null', async () => {
    const provider = createFacebookPageProvider({
      clientId: 'app',
      clientSecret: 'secret',
      redirectUri: null,
      apiBaseUrl: base,
      authBaseUrl: base,
      uploadBaseUrl: base,
      timeoutMs: 5000,
    });
    const m = await provider.fetchPostMetrics!(
      { accessToken: 'page-token', externalAccountId: 'page', channelSettings: {} },
      { providerPostId: 'page_1' },
    );
    assert.deepEqual(m.metrics, { views: 500, viewers: 320, clicks: null, reactions: 6 });
    assert.deepEqual(m.metricNames, ['post_impressions', 'post_impressions_unique', 'post_clicks', 'post_reactions_by_type_total']);
    assert.equal(m.apiVersion, 'graph/v19.0');
    assert.equal(asked.length, 2);
  });
});
