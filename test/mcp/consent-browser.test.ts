/**
 * The consent page in Chromium, as a person meets it when an MCP client signs in: the official MCP
 * client registers and sends the browser to /app/oauth/authorize; the person signs in there, reads
 * which client asks for which organization and scopes, and allows it; the browser goes back to the
 * client's redirect URI with the code, and the client lists the tools with its token.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ensureWebBuild, SCREENSHOTS } from '../dashboard/support.js';
import { type SandboxServer, startSandboxServer } from '../sdk/sandbox-server.js';
import { addMember, PASSWORD } from '../support/auth.js';

const REDIRECT = 'http://127.0.0.1:33419/oauth/callback';

class Provider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata = { client_name: 'Desk agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
  clientInformation() {
    return this.client;
  }
  saveClientInformation(c: OAuthClientInformationMixed) {
    this.client = c;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t;
  }
  redirectToAuthorization(u: URL) {
    this.authorizationUrl = u;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

describe('MCP sign-in consent page in a browser', { skip: CHROMIUM ? false : 'chromium not installed' }, () => {
  let s: SandboxServer;
  let browser: Browser;
  before(async () => {
    ensureWebBuild();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    s = await startSandboxServer();
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  it('signs in, shows the client, organization and scopes, and sends the code back to the client', async () => {
    const { email } = await addMember(s.ctx, s.organizationId, 'admin');
    const provider = new Provider();
    const url = new URL(`${s.base}/mcp`);
    await assert.rejects(
      new Client({ name: 'desk', version: '1' }).connect(new StreamableHTTPClientTransport(url, { authProvider: provider })),
      UnauthorizedError,
    );

    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    let callback: URL | null = null;
    await page.route(
      (u) => u.href.startsWith(REDIRECT),
      (route) => {
        callback = new URL(route.request().url());
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<p>You can close this window.</p>' });
      },
    );
    await page.goto(provider.authorizationUrl!.href);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const heading = page.getByRole('heading', { level: 1 });
    await heading.getByText('Desk agent').waitFor();
    assert.match(await heading.innerText(), /Allow Desk agent to act for SDK Org\?/);
    assert.match(await page.locator('main').innerText(), /registered itself; its name is not verified/);
    assert.match(await page.getByRole('list', { name: 'requested scopes' }).innerText(), /publish:write/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'oauth-consent.png'), fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(REDIRECT));
    assert.ok(callback, 'the browser went back to the client');
    const back = callback as URL;
    assert.equal(back.searchParams.get('iss'), s.base);

    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await transport.finishAuth(back.searchParams.get('code')!);
    const client = new Client({ name: 'desk', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'publish'));
    } finally {
      await client.close();
    }
  });
});
