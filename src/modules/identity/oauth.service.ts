/**
 * The OAuth 2.0 provider (RFC 6749 with the RFC 9700 profile): authorization code + PKCE S256 only,
 * exact redirect URI match, single-use codes, opaque access tokens stored as digests, refresh tokens
 * rotated on every use with reuse detection (a reused token revokes its whole family, except a retry
 * within the grace window, which answers the pair already issued so two tabs refreshing at once both
 * keep working).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Actor } from '../../http/dashboard-auth.js';
import { PUBLIC_SCOPES } from '../../http/principal.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { digest, digestMatches, generateKey } from '../../platform/secrets/api-key-secret.js';
import type { AppDeps } from '../app-deps.js';
import { OAUTH_GRANT_ID_PREFIX } from './credentials.schemas.js';
import { type OAuthAppRecord, oauthRepository } from './oauth.repository.js';
import { oauthGrantsRepository } from './oauth-grants.repository.js';
import { clientSecretRefDigests, resolveClientSecretRef } from './oauth-secret-refs.js';

export const ACCESS_TOKEN_KIND = 'oat';
const REFRESH_TOKEN_KIND = 'ort';
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export interface AuthorizeParams {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  prompt?: string;
  /** RFC 8707: the API (the issuer, default for dashboard apps) or the MCP endpoint (default for dynamic clients) */
  resource?: string;
}

export interface ValidAuthorize {
  app: OAuthAppRecord;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string;
  /** null: the REST API; the MCP endpoint's URL: /mcp only */
  resource: string | null;
}

export interface TokenPair {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const invalidAuthorize = (message: string, field: string) =>
  new AppError('invalid_public_oauth_authorize_request', { message, fields: [{ path: [field], source: 'query' }] });
const invalidToken = (message: string, field?: string) =>
  new AppError('invalid_oauth_token_request', { message, ...(field ? { fields: [{ path: [field], source: 'body' as const }] } : {}) });
const codeInvalid = () => new AppError('oauth_authorization_code_invalid');
const refreshInvalid = () => new AppError('oauth_refresh_token_invalid');
const targetMismatch = () =>
  new AppError('invalid_target', {
    message: 'resource differs from the resource the grant was issued for.',
    fields: [{ path: ['resource'], source: 'body' }],
  });

export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(digest(a), 'hex');
  const y = Buffer.from(digest(b), 'hex');
  return timingSafeEqual(x, y);
}

export class OAuthService {
  /** the operator's client secret references (NAME -> digest), read once from the setting */
  private readonly secretRefs: Map<string, string>;

  constructor(private readonly deps: Pick<AppDeps, 'config' | 'database' | 'counters' | 'encryptor' | 'clock'>) {
    this.secretRefs = clientSecretRefDigests(deps.config.env);
  }
  private get db() {
    return this.deps.database.db;
  }
  private get env() {
    return this.deps.config.env;
  }

  get issuer(): string {
    return this.deps.config.publicBaseUrl;
  }

  /** The MCP endpoint as an RFC 8707 resource (RFC 9728 metadata names it). */
  get mcpResource(): string {
    return `${this.issuer}/mcp`;
  }

  /**
   * The audience a token is bound to (RFC 8707). Tokens for the REST API are stored with null and
   * tokens for the MCP endpoint with its URL; each refuses the other's. Dynamically registered clients
   * (public, self-registered) only receive MCP tokens; dashboard apps receive API tokens unless they
   * ask for the MCP resource.
   */
  resolveResource(app: OAuthAppRecord, requested: string | undefined, field: 'query' | 'body'): string | null {
    const invalid = () =>
      new AppError('invalid_target', {
        message: `resource must be ${app.registration === 'dynamic' ? '' : `${this.issuer} (the API) or `}${this.mcpResource} (the MCP endpoint).`,
        fields: [{ path: ['resource'], source: field }],
      });
    if (requested === undefined) return app.registration === 'dynamic' ? this.mcpResource : null;
    const r = requested.replace(/\/+$/, '');
    if (r === this.mcpResource) return this.mcpResource;
    if (app.registration === 'dashboard' && (r === this.issuer || r === `${this.issuer}/v1`)) return null;
    throw invalid();
  }

  assertEnabled(): void {
    if (!this.deps.config.gateOpen('SERVICE_PUBLIC_OAUTH_ENABLED')) throw new AppError('public_oauth_disabled');
  }

  metadata() {
    const base = this.issuer;
    return {
      issuer: base,
      // the dashboard's consent page (it calls GET and POST /v1/oauth/authorize with the signed-in session)
      authorization_endpoint: `${base}/app/oauth/authorize`,
      token_endpoint: `${base}/v1/oauth/token`,
      revocation_endpoint: `${base}/v1/oauth/revoke`,
      registration_endpoint: `${base}/v1/oauth/register`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      // none: public clients of dynamic registration (PKCE is required of every client)
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: [...PUBLIC_SCOPES],
      authorization_response_iss_parameter_supported: true,
    };
  }

  /** Validates an authorization request in the order of the specification's rule 7. */
  async validateAuthorize(organizationId: string, p: AuthorizeParams): Promise<ValidAuthorize> {
    this.assertEnabled();
    if (!p.client_id) throw invalidAuthorize('client_id is required.', 'client_id');
    const app = await oauthRepository.findAppByClientId(this.db, p.client_id);
    // a dashboard app serves its own organization; a dynamic client any organization whose admin consents
    if (!app || (app.organizationId !== null && app.organizationId !== organizationId)) throw new AppError('oauth_app_not_found');
    if (!p.redirect_uri || !app.redirectUris.includes(p.redirect_uri)) throw new AppError('oauth_redirect_uri_not_registered');
    if (p.response_type !== 'code') throw invalidAuthorize('response_type must be code.', 'response_type');
    if (p.code_challenge_method !== 'S256')
      throw invalidAuthorize('PKCE is required with code_challenge_method=S256 (plain is refused).', 'code_challenge_method');
    if (!p.code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(p.code_challenge))
      throw invalidAuthorize('code_challenge must be the base64url SHA-256 of the code verifier (43 characters).', 'code_challenge');
    if (p.state !== undefined && (p.state.length === 0 || p.state.length > 512))
      throw invalidAuthorize('state must be 1 to 512 characters.', 'state');
    if (p.prompt !== undefined && p.prompt !== 'none' && p.prompt !== 'consent')
      throw invalidAuthorize('prompt must be none or consent.', 'prompt');
    const requested = p.scope ? [...new Set(p.scope.split(' ').filter(Boolean))] : app.scopes;
    const notAllowed = requested.filter((s) => !app.scopes.includes(s));
    if (requested.length === 0 || notAllowed.length > 0)
      throw invalidAuthorize(`Scopes not registered for this app: ${notAllowed.join(' ') || '(none requested)'}.`, 'scope');
    const resource = this.resolveResource(app, p.resource, 'query');
    return { app, redirectUri: p.redirect_uri, scopes: requested, state: p.state ?? null, codeChallenge: p.code_challenge, resource };
  }

  /** The redirect back to the client: code (or error), state round-tripped, iss (RFC 9207). */
  redirectTo(v: ValidAuthorize, params: Record<string, string>): string {
    const url = new URL(v.redirectUri);
    for (const [k, val] of Object.entries(params)) url.searchParams.set(k, val);
    if (v.state !== null) url.searchParams.set('state', v.state);
    url.searchParams.set('iss', this.issuer);
    return url.toString();
  }

  async hasGrant(organizationId: string, userId: string, v: ValidAuthorize): Promise<string | null> {
    const grants = await oauthRepository.findLiveGrant(this.db, organizationId, v.app.id, userId);
    return grants.find((g) => v.scopes.every((s) => g.scopes.includes(s)))?.id ?? null;
  }

  /** The signed-in admin approves: a grant (reused when one covers the scopes) and a single-use code. */
  async approve(actor: Extract<Actor, { kind: 'user' }>, v: ValidAuthorize): Promise<string> {
    const at = this.deps.clock.now();
    const code = randomBytes(32).toString('base64url');
    let authorizationId = await this.hasGrant(actor.organizationId, actor.userId, v);
    await this.db.transaction().execute(async (tx) => {
      if (!authorizationId) {
        authorizationId = newId(OAUTH_GRANT_ID_PREFIX);
        try {
          await oauthRepository.insertGrant(tx, {
            id: authorizationId,
            organizationId: actor.organizationId,
            oauthAppId: v.app.id,
            userId: actor.userId,
            scopes: v.scopes,
            at,
          });
        } catch (cause) {
          throw new AppError('oauth_authorization_write_failed', { cause });
        }
      }
      try {
        await oauthRepository.insertCode(tx, {
          codeHash: digest(code),
          authorizationId,
          redirectUri: v.redirectUri,
          codeChallenge: v.codeChallenge,
          resource: v.resource,
          scopes: v.scopes,
          expiresAt: new Date(at.getTime() + this.env.SERVICE_OAUTH_CODE_TTL_SECONDS * 1000),
          at,
        });
      } catch (cause) {
        throw new AppError('oauth_authorization_code_write_failed', { cause });
      }
    });
    return this.redirectTo(v, { code });
  }

  /**
   * Client authentication: client_secret_basic or client_secret_post for dashboard apps; none (the
   * client id alone, PKCE proving the caller) for dynamically registered public clients, which must
   * not send a secret. 401 invalid_client otherwise.
   */
  async authenticateClient(clientId: string | undefined, clientSecret: string | undefined): Promise<OAuthAppRecord> {
    const invalid = () => new AppError('invalid_client');
    if (!clientId) throw invalid();
    if (clientSecret === undefined) {
      const app = await oauthRepository.findAppByClientId(this.db, clientId);
      if (app?.registration !== 'dynamic') throw invalid();
      return app;
    }
    const app = await oauthRepository.findAppByClientId(this.db, clientId);
    if (app?.registration === 'dynamic') throw invalid();
    if (!app) {
      digestMatches(clientSecret, '0'.repeat(64)); // same work as a known client
      throw invalid();
    }
    // an operator reference resolves only to an entry of SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS, never
    // to the process environment; both kinds are compared as SHA-256 digests in constant time
    const expected = app.clientSecretRef ? resolveClientSecretRef(app.clientSecretRef, this.secretRefs) : app.clientSecretHash;
    if (!expected) {
      digestMatches(clientSecret, '0'.repeat(64));
      // the operator removed the entry: the caller learns only that the app cannot authenticate now
      if (app.clientSecretRef) throw new AppError('oauth_client_secret_unavailable');
      throw invalid();
    }
    if (!digestMatches(clientSecret, expected)) throw invalid();
    return app;
  }

  /** Per-client limit of the token and revocation endpoints, in the shared counter store. */
  async rateLimit(clientId: string): Promise<void> {
    const limit = this.env.SERVICE_OAUTH_TOKEN_REQUESTS_PER_MINUTE;
    const windowMs = 60_000;
    const now = this.deps.clock.now().getTime();
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const r = await this.deps.counters.shared.consume(`rl:oauth:token:${clientId}:${windowStart}`, 1, limit, windowMs + 1000);
    if (!r.allowed) {
      const retry = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      throw new AppError('public_api_rate_limited', {
        message: `Token endpoint limit of ${limit} requests per ${windowMs / 1000} s for this client exceeded.`,
        headers: { 'retry-after': String(retry) },
      });
    }
  }

  private async issuePair(
    tx: Parameters<typeof oauthRepository.insertToken>[0],
    authorizationId: string,
    familyId: string,
    codeHash: string | null,
    resource: string | null,
    scopes: string[],
    at: Date,
  ): Promise<TokenPair> {
    const access = generateKey(ACCESS_TOKEN_KIND);
    const refresh = generateKey(REFRESH_TOKEN_KIND);
    const accessTtl = this.env.SERVICE_OAUTH_ACCESS_TOKEN_TTL_SECONDS;
    // each token of the pair is written alone, so a failed write names which one it was
    const grant = { authorizationId, familyId, codeHash, resource, scopes, at };
    const insert = async (
      kind: 'access' | 'refresh',
      id: string,
      tokenHash: string,
      ttlSeconds: number,
      failure: 'oauth_access_token_write_failed' | 'oauth_refresh_token_write_failed',
    ) => {
      try {
        await oauthRepository.insertToken(tx, { id, tokenHash, kind, expiresAt: new Date(at.getTime() + ttlSeconds * 1000), ...grant });
      } catch (cause) {
        throw new AppError(failure, { cause });
      }
    };
    await insert('access', newId('oat'), access.hash, accessTtl, 'oauth_access_token_write_failed');
    const refreshTtl = this.env.SERVICE_OAUTH_REFRESH_TOKEN_TTL_SECONDS;
    await insert('refresh', newId('ort'), refresh.hash, refreshTtl, 'oauth_refresh_token_write_failed');
    return { access_token: access.key, token_type: 'Bearer', expires_in: accessTtl, refresh_token: refresh.key, scope: scopes.join(' ') };
  }

  async exchangeCode(app: OAuthAppRecord, body: Record<string, string | undefined>): Promise<TokenPair> {
    const { code, redirect_uri: redirectUri, code_verifier: verifier } = body;
    if (!code) throw invalidToken('code is required.', 'code');
    if (!redirectUri) throw invalidToken('redirect_uri is required.', 'redirect_uri');
    if (!verifier || !VERIFIER.test(verifier)) throw invalidToken('code_verifier (43 to 128 characters) is required.', 'code_verifier');
    const at = this.deps.clock.now();
    const codeHash = digest(code);
    // a replayed code revokes what it issued; that revocation must commit before the refusal is answered
    const outcome = await this.db.transaction().execute(async (tx) => {
      const row = await oauthRepository.findCodeForUpdate(tx, codeHash);
      if (!row) return { error: codeInvalid() };
      const grant = await oauthGrantsRepository.grantOfApp(tx, app.id, row.authorization_id);
      if (!grant) return { error: codeInvalid() };
      if (row.consumed_at) {
        await oauthRepository.revokeByCode(tx, codeHash, at);
        return { error: new AppError('oauth_authorization_code_consumed') };
      }
      if (row.expires_at.getTime() <= at.getTime() || grant.revoked_at) return { error: codeInvalid() };
      if (row.redirect_uri !== redirectUri || !safeEqual(s256(verifier), row.code_challenge)) return { error: codeInvalid() };
      // RFC 8707: a resource named at the token endpoint must be the one the code was issued for
      if (body.resource !== undefined && this.resolveResource(app, body.resource, 'body') !== row.resource)
        return { error: targetMismatch() };
      await oauthRepository.consumeCode(tx, codeHash, at);
      return { pair: await this.issuePair(tx, grant.id, newId('fam'), codeHash, row.resource, row.scopes, at) };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.pair;
  }

  async refresh(app: OAuthAppRecord, body: Record<string, string | undefined>): Promise<TokenPair> {
    const token = body.refresh_token;
    if (!token) throw invalidToken('refresh_token is required.', 'refresh_token');
    const at = this.deps.clock.now();
    const outcome = await this.db.transaction().execute(async (tx) => {
      const row = await oauthRepository.findToken(tx, digest(token), true);
      if (row?.kind !== 'refresh') return { error: refreshInvalid() };
      const grant = await oauthGrantsRepository.grantOfApp(tx, app.id, row.authorizationId);
      if (!grant) return { error: refreshInvalid() };
      if (grant.revoked_at || row.revokedAt || row.expiresAt.getTime() <= at.getTime()) return { error: refreshInvalid() };
      if (row.consumedAt) {
        const graceMs = this.env.SERVICE_OAUTH_REFRESH_GRACE_SECONDS * 1000;
        if (row.replacedByPair && at.getTime() - row.consumedAt.getTime() <= graceMs) {
          return { pair: JSON.parse(this.deps.encryptor.decrypt(row.replacedByPair, row.id)) as TokenPair };
        }
        await oauthRepository.revokeFamily(tx, row.familyId, at);
        return { error: new AppError('oauth_refresh_token_consumed') };
      }
      let scopes = row.scopes;
      if (body.scope !== undefined) {
        const narrowed = [...new Set(body.scope.split(' ').filter(Boolean))];
        if (narrowed.length === 0 || narrowed.some((s) => !row.scopes.includes(s)))
          throw invalidToken('scope may only narrow the granted scopes.', 'scope');
        scopes = narrowed;
      }
      if (body.resource !== undefined && this.resolveResource(app, body.resource, 'body') !== row.resource) throw targetMismatch();
      const pair = await this.issuePair(tx, grant.id, row.familyId, row.codeHash, row.resource, scopes, at);
      await oauthRepository.consumeRefresh(tx, row.id, at, this.deps.encryptor.encrypt(JSON.stringify(pair), row.id));
      return { pair };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.pair;
  }

  /** RFC 7009: a refresh token revokes its family; an access token itself. Unknown tokens are ignored. */
  async revoke(app: OAuthAppRecord, token: string): Promise<void> {
    const at = this.deps.clock.now();
    await this.db.transaction().execute(async (tx) => {
      const row = await oauthRepository.findToken(tx, digest(token), true);
      if (!row) return;
      if (!(await oauthGrantsRepository.grantOfApp(tx, app.id, row.authorizationId))) return;
      if (row.kind === 'refresh') await oauthRepository.revokeFamily(tx, row.familyId, at);
      else await oauthGrantsRepository.revokeToken(tx, row.id, at);
    });
  }
}
