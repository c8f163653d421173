/**
 * A real OpenID Connect provider (`oidc-provider`) on loopback for the sign-in tests, with one confidential
 * client and accounts the test defines. `login` plays the browser: it follows the authorization URL, lets
 * the chosen account sign in and consent, and answers the redirect's parameters (code, state, iss).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// oidc-provider ships no type declarations; the few calls used here are typed locally
// @ts-expect-error no declaration file
import Provider from 'oidc-provider';

interface OidcAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

interface ProviderApi {
  callback(): (req: unknown, res: unknown) => void;
  interactionDetails(req: unknown, res: unknown): Promise<{ params: { client_id: string } }>;
  interactionFinished(req: unknown, res: unknown, result: unknown, opts?: { mergeWithLastSubmission: boolean }): Promise<void>;
  Grant: new (o: { accountId: string; clientId: string }) => { addOIDCScope(s: string): void; save(): Promise<string> };
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, OidcAccount>;
  /** the browser's round trip through the provider as `accountId`; the redirect's query parameters */
  login(authorizationUrl: string, accountId: string): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export async function startOidcProvider(redirectUri: string): Promise<TestOidcProvider> {
  const accounts = new Map<string, OidcAccount>();
  let nextAccount = '';
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'service-api-dashboard';
  const clientSecret = 'a-client-secret-for-tests-0123456789';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['cookie-key-for-tests-0123456789'] },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, sub: string) =>
      accounts.has(sub) ? { accountId: sub, claims: async () => ({ sub, ...accounts.get(sub) }) } : undefined,
  }) as ProviderApi;
  const handle = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return handle(req, res);
    // the provider's login and consent page: sign the chosen account in and grant the requested scopes
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: nextAccount, clientId: details.params.client_id });
      grant.addOIDCScope('openid email profile');
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: nextAccount }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    })().catch((err) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    async login(authorizationUrl, accountId) {
      nextAccount = accountId;
      const jar = new Map<string, string>();
      let url = authorizationUrl;
      for (let hop = 0; hop < 10; hop++) {
        const res = await fetch(url, {
          redirect: 'manual',
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
        });
        for (const c of res.headers.getSetCookie()) {
          const [pair] = c.split(';');
          const i = pair!.indexOf('=');
          jar.set(pair!.slice(0, i), pair!.slice(i + 1));
        }
        const location = res.headers.get('location');
        if (!location) throw new Error(`the provider answered ${res.status} without a redirect: ${await res.text()}`);
        const next = new URL(location, url);
        if (next.href.startsWith(redirectUri)) return next.searchParams;
        url = next.href;
      }
      throw new Error('too many redirects at the provider');
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
