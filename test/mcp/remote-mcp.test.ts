/**
 * The remote MCP endpoint as an MCP client meets it, with the official client and its OAuth helpers:
 * the 401 names the resource metadata, the client discovers the authorization server, registers itself
 * (RFC 7591), sends the person to the consent page (here: the page's two API calls with a signed-in
 * admin), exchanges the code with PKCE, lists the tools over Streamable HTTP and publishes with confirm
 * on the sandbox X channel until the job is published. Around it: Origin and Host refused, tokens bound
 * to their resource, sessions bound to their grant, another organization's token sees nothing of this
 * one, and an admin disconnects the client.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type SandboxServer, startSandboxServer } from '../sdk/sandbox-server.js';
import { AUTH_ENV, DASHBOARD, sessionHeaders } from '../support/auth.js';

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };
const json = (r: unknown) => JSON.parse((r as ToolResult).content[0]!.text) as Record<string, any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An MCP client's OAuth state, in memory; "redirecting" records the authorization URL. */
class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  readonly redirectUrl = 'http://127.0.0.1:33418/oauth/callback';
  constructor(private readonly name: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

describe('remote MCP endpoint with OAuth sign-in', () => {
  let s: SandboxServer;
  let admin: Record<string, string>;

  /** Connects an MCP client through the whole OAuth flow, consented by the given signed-in admin. */
  async function connect(name: string, consentBy: Record<string, string>) {
    const provider = new MemoryOAuthProvider(name);
    const first = new StreamableHTTPClientTransport(new URL(`${s.base}/mcp`), { authProvider: provider });
    await assert.rejects(new Client({ name, version: '1.0.0' }).connect(first), UnauthorizedError);
    assert.ok(provider.client?.client_id, 'the client registered itself');
    const url = provider.authorizationUrl!;
    assert.equal(url.pathname, '/app/oauth/authorize', 'the person is sent to the dashboard consent page');
    assert.equal(url.searchParams.get('resource'), `${s.base}/mcp`);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    // what the consent page does with the signed-in session: describe, then approve
    const described = await fetch(`${s.base}/v1/oauth/authorize${url.search}`, { headers: consentBy });
    assert.equal(described.status, 200, await described.clone().text());
    const consent = (await described.json()) as Record<string, any>;
    assert.equal(consent.client.name, name);
    assert.equal(consent.registration, 'dynamic');
    assert.equal(consent.resource, `${s.base}/mcp`);
    assert.ok(consent.scopes.includes('publish:write'));
    const approved = await fetch(`${s.base}/v1/oauth/authorize`, {
      method: 'POST',
      headers: { ...consentBy, 'content-type': 'application/json' },
      body: JSON.stringify(Object.fromEntries(url.searchParams)),
    });
    assert.equal(approved.status, 200, await approved.clone().text());
    const redirectTo = new URL(((await approved.json()) as { redirectTo: string }).redirectTo);
    assert.equal(`${redirectTo.origin}${redirectTo.pathname}`, provider.redirectUrl);
    await first.finishAuth(redirectTo.searchParams.get('code')!);
    assert.ok(provider.saved?.access_token.startsWith('oat_'));
    const client = new Client({ name, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${s.base}/mcp`), { authProvider: provider });
    await client.connect(transport);
    return { client, transport, provider, token: provider.saved!.access_token };
  }

  let a: Awaited<ReturnType<typeof connect>>;
  before(async () => {
    s = await startSandboxServer(AUTH_ENV);
    admin = await sessionHeaders(s.ctx, s.organizationId, 'admin');
  });
  after(async () => {
    await a?.client.close().catch(() => undefined);
    await s.close();
  });

  it('answers 401 with the resource metadata, which names this service as the authorization server', async () => {
    const res = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.equal(metadataUrl, `${s.base}/.well-known/oauth-protected-resource/mcp`);
    const prm = (await (await fetch(metadataUrl!)).json()) as Record<string, any>;
    assert.equal(prm.resource, `${s.base}/mcp`);
    assert.deepEqual(prm.authorization_servers, [s.base]);
    assert.deepEqual(await (await fetch(`${s.base}/.well-known/oauth-protected-resource`)).json(), prm);
    const as = (await (await fetch(`${s.base}/.well-known/oauth-authorization-server`)).json()) as Record<string, any>;
    assert.equal(as.registration_endpoint, `${s.base}/v1/oauth/register`);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.ok(as.token_endpoint_auth_methods_supported.includes('none'));
    assert.deepEqual(as.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.ok(as.scopes_supported.includes('publish:write'));
  });

  it('connects with sign-in and consent, lists the tools, and publishes with confirm until the job is published', async () => {
    a = await connect('Test agent', admin);
    const { tools } = await a.client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of [
      'publish',
      'create_draft',
      'list_drafts',
      'reschedule_publish_job',
      'cancel_publish_job',
      'upload_media_from_url',
      'find_publish_slot',
      'list_comments_needing_reply',
    ])
      assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    const publish = tools.find((t) => t.name === 'publish')!;
    assert.equal(publish.inputSchema.additionalProperties, false);
    assert.ok(!('enqueue' in (publish.inputSchema.properties ?? {})), 'publish always publishes or schedules');

    const plan = { brandId: s.brandId, text: 'Hello from an agent', targets: [{ platform: 'x', channelAccountId: s.channelAccountId }] };
    const unknown = (await a.client.callTool({ name: 'publish', arguments: { plan, confirm: true, enqueue: false } })) as ToolResult;
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0]!.text, /Unknown argument enqueue/);

    const draft = json(await a.client.callTool({ name: 'create_draft', arguments: { plan, confirm: true } }));
    assert.equal(draft.status, 'draft', JSON.stringify(draft));
    const drafts = json(await a.client.callTool({ name: 'list_drafts', arguments: {} }));
    assert.deepEqual(
      drafts.data.map((j: { publishJobId: string }) => j.publishJobId),
      [draft.publishJobId],
    );

    const done = (await a.client.callTool({ name: 'publish', arguments: { plan, confirm: true } })) as ToolResult;
    const job = json(done);
    assert.ok(job.publishJobId && job.status !== 'draft', done.content[0]!.text);
    assert.match(done.content[1]?.text ?? '', /get_publish_job/, 'the answer says what to call next');
    let status = '';
    for (let i = 0; i < 100 && status !== 'published'; i++) {
      status = json(await a.client.callTool({ name: 'get_publish_job', arguments: { publishJobId: job.publishJobId } })).status;
      if (status !== 'published') await sleep(100);
    }
    assert.equal(status, 'published');
  });

  it('refuses a foreign Origin and a foreign Host, even with a valid token', async () => {
    const res = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.token}`, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { error: string }).error, 'mcp_origin_not_allowed');
    const allowed = await fetch(`${s.base}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${a.token}`, origin: DASHBOARD } });
    assert.notEqual(allowed.status, 403, 'an allowed origin passes the check');
    const status = await new Promise<number>((resolve, reject) => {
      const port = new URL(s.base).port;
      const req = http.request({
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { host: 'evil.test', authorization: `Bearer ${a.token}` },
      });
      req.on('response', (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 421);
  });

  it('binds tokens to their resource: the REST API refuses an MCP token and /mcp refuses an API key', async () => {
    const rest = await fetch(`${s.base}/v1/brands`, { headers: { authorization: `Bearer ${a.token}` } });
    assert.equal(rest.status, 401);
    const key = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(key.status, 401);
    assert.match(key.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });

  it('a token of another organization sees nothing of this one, and cannot use its session', async () => {
    const other = await s.ctx.createOrganization({ name: 'Other org' });
    const otherBrand = (await s.ctx.createBrand(other.organizationId, 'Other brand')).brandId;
    const b = await connect('Other agent', await sessionHeaders(s.ctx, other.organizationId, 'admin'));
    try {
      const brands = json(await b.client.callTool({ name: 'list_brands', arguments: {} }));
      assert.deepEqual(
        brands.data.map((x: { brandId: string }) => x.brandId),
        [otherBrand],
      );
      const jobs = json(await b.client.callTool({ name: 'list_publish_jobs', arguments: {} }));
      assert.equal(jobs.data.length, 0);
      const foreign = (await b.client.callTool({ name: 'get_brand', arguments: { brandId: s.brandId } })) as ToolResult;
      assert.equal(foreign.isError, true);
      assert.equal(JSON.parse(foreign.content[0]!.text).status, 404);
      // A's session id presented with B's token is unknown
      const hijack = await fetch(`${s.base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${b.token}`,
          'mcp-session-id': a.transport.sessionId!,
          'mcp-protocol-version': '2025-06-18',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      assert.equal(hijack.status, 404);
    } finally {
      await b.client.close();
    }
  });

  it('an admin sees the connected client and disconnects it; its token stops working', async () => {
    const list = await fetch(`${s.base}/v1/oauth/connected-clients`, { headers: admin });
    assert.equal(list.status, 200);
    const { data } = (await list.json()) as { data: Array<{ oauthAppId: string; name: string; clientId: string }> };
    const mine = data.find((c) => c.clientId === a.provider.client!.client_id);
    assert.ok(mine && mine.name === 'Test agent', JSON.stringify(data));
    assert.ok(!data.some((c) => c.name === 'Other agent'), 'another organization’s client is not listed');
    const del = await fetch(`${s.base}/v1/oauth/connected-clients/${mine.oauthAppId}`, { method: 'DELETE', headers: admin });
    assert.equal(del.status, 204);
    const after = await fetch(`${s.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    assert.equal(after.status, 401);
  });
});
