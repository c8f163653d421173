/**
 * Sandbox mode end to end over real HTTP: the process serves the simulators under /sandbox/<family>;
 * connect-url answers an authorization URL on the local simulator; opening it approves at once and
 * redirects to our callback, which connects the channel with simulated tokens.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';
import { freePort } from '../support/service-process.js';
import { SIMULATOR_FAMILY } from '../support/simulators.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;
const RETURN = 'https://app.example.test/connected';

describe('sandbox mode connect flow', () => {
  let ctx: TestContext;
  let base: string;
  let org: Org;
  let other: Org;
  let brandId: string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({
      env: {
        SERVICE_PROVIDER_MODE: 'sandbox',
        SERVICE_PUBLIC_BASE_URL: base,
        SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS: 'https://app.example.test',
      },
    });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    org = await ctx.createOrganization({ name: 'Sandbox Org' });
    other = await ctx.createOrganization({ name: 'Other' });
    brandId = (await ctx.createBrand(org.organizationId, 'Sandbox Brand')).brandId;
  });
  after(() => ctx.close());

  const api = (path: string, init: { method?: string; body?: unknown; auth?: Org } = {}) =>
    fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.auth ?? org).auth,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      redirect: 'manual',
    });

  /** connect-url -> simulator consent (approves at once) -> our callback -> returnUrl; answers the final redirect. */
  async function connect(platform: string): Promise<{ final: URL; state: string; authorizationUrl: string }> {
    const res = await api('/v1/channel-accounts/connect-url', {
      method: 'POST',
      body: { platform, brandId, returnUrl: RETURN },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as {
      authorizationUrl: string;
      redirectUri: string;
      state: string;
      scopes: string[];
      platform: string;
    };
    assert.equal(body.platform, platform);
    assert.equal(body.redirectUri, `${base}/v1/channel-accounts/oauth/callback/${platform}`);
    assert.ok(body.scopes.length > 0);
    assert.ok(body.authorizationUrl.startsWith(`${base}/sandbox/`), body.authorizationUrl);
    const consent = await fetch(body.authorizationUrl, { redirect: 'manual' });
    assert.equal(consent.status, 302, `${platform} consent: ${await consent.text()}`);
    const callback = new URL(consent.headers.get('location')!);
    assert.equal(`${callback.origin}${callback.pathname}`, body.redirectUri);
    assert.equal(callback.searchParams.get('state'), body.state);
    const done = await fetch(callback, { redirect: 'manual' });
    assert.equal(done.status, 302, `${platform} callback: ${await done.text()}`);
    return {
      final: new URL(done.headers.get('location')!),
      state: body.state,
      authorizationUrl: body.authorizationUrl,
    };
  }

  const families = [
    { platform: 'youtube', tool: 'privacyOptions', revoke: true },
    { platform: 'pinterest', tool: 'boardList', revoke: false },
    { platform: 'tiktok', tool: 'privacyOptions', revoke: true },
    {
      platform: 'x',
      tool: 'communitySearch',
      input: { query: 'sandbox' },
      revoke: true,
    },
    { platform: 'threads', tool: 'pageProfile', revoke: false },
  ];
  for (const f of families) {
    it(`connects a ${f.platform} account through the local simulator and runs ${f.tool} with its token`, async () => {
      const { final } = await connect(f.platform);
      assert.equal(`${final.origin}${final.pathname}`, RETURN);
      assert.equal(final.searchParams.get('channelConnect'), 'connected', final.toString());
      assert.equal(final.searchParams.get('platform'), f.platform);
      const id = final.searchParams.get('channelAccountId')!;
      const list = (await (await api(`/v1/channel-accounts?platform=${f.platform}`)).json()) as { data: Array<Record<string, unknown>> };
      const ch = list.data.find((c) => c.channelAccountId === id)!;
      assert.equal(ch.state, 'connected');
      assert.equal(ch.brandId, brandId);
      const secrets = await ctx.database.db
        .selectFrom('provider_token_secrets')
        .select(['kind'])
        .where('channel_account_id', '=', id)
        .execute();
      assert.ok(secrets.some((s) => s.kind === 'access'));
      const tool = await api(`/v1/providers/tools/${f.tool}`, {
        method: 'POST',
        body: { channelAccountId: id, input: f.input ?? {} },
      });
      assert.equal(tool.status, 200, await tool.clone().text());
      const out = (await tool.json()) as { tool: string; results: unknown[] };
      assert.equal(out.tool, f.tool);
      assert.ok(out.results.length > 0);
      const foreign = await api(`/v1/providers/tools/${f.tool}`, {
        method: 'POST',
        body: { channelAccountId: id, input: f.input ?? {} },
        auth: other,
      });
      assert.equal(foreign.status, 404);
    });
  }

  it('offers a choice of Facebook pages (in_between_steps) and connects the chosen page with its page token', async () => {
    const { final } = await connect('facebook_page');
    assert.equal(final.searchParams.get('channelConnect'), 'in_between_steps', final.toString());
    const id = final.searchParams.get('channelAccountId')!;
    const choices = (await (await api(`/v1/channel-accounts/${id}/choices`)).json()) as {
      data: Array<{ externalAccountId: string; displayName: string }>;
    };
    assert.ok(choices.data.length >= 2);
    assert.equal((await api(`/v1/channel-accounts/${id}/choices`, { auth: other })).status, 404);
    const bad = await api(`/v1/channel-accounts/${id}/select`, {
      method: 'POST',
      body: { organizationId: org.organizationId, externalAccountId: 'nope' },
    });
    assert.equal(bad.status, 400);
    const chosen = choices.data[1]!;
    const foreignSelect = await api(`/v1/channel-accounts/${id}/select`, {
      method: 'POST',
      auth: other,
      body: {
        organizationId: other.organizationId,
        externalAccountId: chosen.externalAccountId,
      },
    });
    assert.equal(foreignSelect.status, 404);
    const sel = await api(`/v1/channel-accounts/${id}/select`, {
      method: 'POST',
      body: {
        organizationId: org.organizationId,
        externalAccountId: chosen.externalAccountId,
      },
    });
    assert.equal(sel.status, 200, await sel.clone().text());
    const ch = (await sel.json()) as Record<string, unknown>;
    assert.equal(ch.state, 'connected');
    assert.equal(ch.externalAccountId, chosen.externalAccountId);
    assert.equal(ch.displayName, chosen.displayName);
    const again = await api(`/v1/channel-accounts/${id}/select`, {
      method: 'POST',
      body: {
        organizationId: org.organizationId,
        externalAccountId: chosen.externalAccountId,
      },
    });
    assert.equal(again.status, 409);
    const profile = await api('/v1/providers/tools/pageProfile', {
      method: 'POST',
      body: { channelAccountId: id, input: {} },
    });
    assert.equal(profile.status, 200, await profile.clone().text());
  });

  it('consumes the state once, refuses forged states, and reports a denied login on the return URL', async () => {
    const res = await api('/v1/channel-accounts/connect-url', {
      method: 'POST',
      body: { platform: 'x', returnUrl: RETURN },
    });
    const { authorizationUrl, state } = (await res.json()) as {
      authorizationUrl: string;
      state: string;
    };
    const consent = await fetch(authorizationUrl, { redirect: 'manual' });
    const callback = consent.headers.get('location')!;
    assert.equal((await fetch(callback, { redirect: 'manual' })).status, 302);
    const replay = await fetch(callback, { redirect: 'manual' });
    assert.equal(replay.status, 400);
    assert.equal(((await replay.json()) as { error: string }).error, 'channel_oauth_state_invalid');
    const forged = await fetch(`${base}/v1/channel-accounts/oauth/callback/x?code=abc&state=${state.slice(0, -2)}AA`, {
      redirect: 'manual',
    });
    assert.equal(forged.status, 400);
    const wrongPlatform = await api('/v1/channel-accounts/connect-url', {
      method: 'POST',
      body: { platform: 'tiktok' },
    });
    const st = ((await wrongPlatform.json()) as { state: string }).state;
    assert.equal((await fetch(`${base}/v1/channel-accounts/oauth/callback/x?code=abc&state=${st}`, { redirect: 'manual' })).status, 400);
    const fresh = (await (
      await api('/v1/channel-accounts/connect-url', {
        method: 'POST',
        body: { platform: 'pinterest', returnUrl: RETURN },
      })
    ).json()) as { state: string };
    const denied = await fetch(`${base}/v1/channel-accounts/oauth/callback/pinterest?error=access_denied&state=${fresh.state}`, {
      redirect: 'manual',
    });
    assert.equal(denied.status, 302);
    const to = new URL(denied.headers.get('location')!);
    assert.equal(to.searchParams.get('channelConnect'), 'error');
    assert.equal(to.searchParams.get('error'), 'access_denied');
  });

  it('answers JSON when the connect request had no return URL, and revokes at the platform on disconnect', async () => {
    const res = await api('/v1/channel-accounts/connect-url', {
      method: 'POST',
      body: { platform: 'x' },
    });
    const { authorizationUrl } = (await res.json()) as {
      authorizationUrl: string;
    };
    const consent = await fetch(authorizationUrl, { redirect: 'manual' });
    const done = await fetch(consent.headers.get('location')!, {
      redirect: 'manual',
    });
    assert.equal(done.status, 200);
    const out = (await done.json()) as {
      result: string;
      channelAccountId: string;
    };
    assert.equal(out.result, 'connected');
    const del = await api(`/v1/channel-accounts/${out.channelAccountId}`, {
      method: 'DELETE',
      body: { organizationId: org.organizationId },
    });
    const summary = ((await del.json()) as { disconnectSummary: Record<string, unknown> }).disconnectSummary;
    assert.equal(summary.revokedChannelTokenCount, 1);
    assert.ok((summary.revokedProviderTokenSecretCount as number) >= 1);
    const sandbox = ctx.root.sandbox!;
    assert.ok(sandbox.ledgers.x.count('revoke') >= 1);
  });

  it("keeps the simulators out of the API's OpenAPI document", async () => {
    const doc = (await (await fetch(`${base}/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    assert.ok(Object.keys(doc.paths).includes('/v1/channel-accounts/connect-url'));
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.startsWith('/sandbox')),
      [],
    );
  });

  it('answers an authorization URL on the local simulator for all eight platforms, and connects Instagram too', async () => {
    for (const [platform, fam] of Object.entries(SIMULATOR_FAMILY)) {
      const res = await api('/v1/channel-accounts/connect-url', {
        method: 'POST',
        body: { platform },
      });
      assert.equal(res.status, 200, platform);
      const { authorizationUrl } = (await res.json()) as {
        authorizationUrl: string;
      };
      assert.ok(authorizationUrl.startsWith(`${base}/sandbox/${fam}/`), `${platform}: ${authorizationUrl}`);
    }
    for (const platform of ['instagram_business', 'instagram_standalone']) {
      const { final } = await connect(platform);
      assert.ok(['connected', 'in_between_steps'].includes(final.searchParams.get('channelConnect') ?? ''), `${platform}: ${final}`);
    }
  });
});
