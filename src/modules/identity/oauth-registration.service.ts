/**
 * RFC 7591 dynamic client registration for MCP clients, and the organization's view of the clients it
 * connected. A registered client is public (token_endpoint_auth_method none, PKCE required at the
 * authorization endpoint like every client), belongs to no organization, and receives tokens only for
 * the MCP endpoint (oauth.service.ts resolveResource). Registration is open, so it is limited per
 * client address; the consent page marks the client's name as self-asserted.
 */
import { randomBytes } from 'node:crypto';
import { PUBLIC_SCOPES } from '../../http/principal.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { AppDeps } from '../app-deps.js';
import { OAUTH_APP_ID_PREFIX } from './credentials.schemas.js';
import { isAllowedRedirectUri } from './credentials.service.js';
import { oauthClientsRepository } from './oauth-clients.repository.js';

export interface RegistrationRequest {
  redirect_uris?: unknown;
  client_name?: unknown;
  token_endpoint_auth_method?: unknown;
  grant_types?: unknown;
  response_types?: unknown;
  scope?: unknown;
  [other: string]: unknown;
}

const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const metadataError = (message: string, field: string) =>
  new AppError('invalid_client_metadata', { message, fields: [{ path: [field], source: 'body' }] });

export interface ConnectedClient {
  oauthAppId: string;
  clientId: string;
  name: string;
  redirectUris: string[];
  scopes: string[];
  userIds: string[];
  grants: number;
  registeredAt: string;
  connectedAt: string;
}

export class OAuthRegistrationService {
  constructor(private readonly deps: Pick<AppDeps, 'config' | 'database' | 'counters' | 'clock'>) {}

  /** Registrations per client address per hour, in the shared counter store (429 with Retry-After). */
  async rateLimit(address: string): Promise<void> {
    const limit = this.deps.config.env.SERVICE_OAUTH_REGISTRATIONS_PER_HOUR;
    const windowMs = 3_600_000;
    const now = this.deps.clock.now().getTime();
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const r = await this.deps.counters.shared.consume(`rl:oauth:register:${address}:${windowStart}`, 1, limit, windowMs + 1000);
    if (!r.allowed) {
      throw new AppError('public_api_rate_limited', {
        message: `At most ${limit} client registrations per hour from one address.`,
        headers: { 'retry-after': String(Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000))) },
      });
    }
  }

  async register(body: RegistrationRequest, address: string) {
    const uris = body.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10 || uris.some((u) => typeof u !== 'string' || u.length > 2048))
      throw metadataError('redirect_uris must be 1 to 10 URIs.', 'redirect_uris');
    const redirectUris = [...new Set(uris as string[])];
    const bad = redirectUris.findIndex((u) => !isAllowedRedirectUri(u));
    if (bad >= 0)
      throw new AppError('invalid_redirect_uri', {
        message: `${redirectUris[bad]} is not allowed: redirect URIs must be https, or http on localhost, 127.0.0.1 or [::1], without a fragment.`,
        fields: [{ path: ['redirect_uris', String(bad)], source: 'body' }],
      });
    const method = body.token_endpoint_auth_method ?? 'none';
    if (method !== 'none')
      throw metadataError(
        'Only public clients can register: token_endpoint_auth_method must be none (PKCE protects the code).',
        'token_endpoint_auth_method',
      );
    const grantTypes = body.grant_types ?? GRANT_TYPES;
    if (!Array.isArray(grantTypes) || grantTypes.length === 0 || grantTypes.some((g) => !GRANT_TYPES.includes(g as string)))
      throw metadataError('grant_types may hold authorization_code and refresh_token only.', 'grant_types');
    const responseTypes = body.response_types ?? ['code'];
    if (!Array.isArray(responseTypes) || responseTypes.length !== 1 || responseTypes[0] !== 'code')
      throw metadataError('response_types must be ["code"].', 'response_types');
    let scopes: string[] = [...PUBLIC_SCOPES];
    if (body.scope !== undefined) {
      if (typeof body.scope !== 'string') throw metadataError('scope is a space-separated string.', 'scope');
      scopes = [...new Set(body.scope.split(' ').filter(Boolean))];
      const unknown = scopes.filter((s) => !(PUBLIC_SCOPES as readonly string[]).includes(s));
      if (scopes.length === 0 || unknown.length > 0) throw metadataError(`Unknown scopes: ${unknown.join(' ') || '(none)'}.`, 'scope');
    }
    const name =
      typeof body.client_name === 'string' && body.client_name.trim() ? body.client_name.trim().slice(0, 120) : 'Unnamed MCP client';
    const at = this.deps.clock.now();
    const app = await oauthClientsRepository.insertDynamicClient(this.deps.database.db, {
      id: newId(OAUTH_APP_ID_PREFIX),
      clientId: `mcp_${randomBytes(16).toString('base64url')}`,
      name,
      redirectUris,
      scopes,
      registeredFrom: address,
      at,
    });
    return {
      client_id: app.clientId,
      client_id_issued_at: Math.floor(at.getTime() / 1000),
      client_name: app.name,
      redirect_uris: app.redirectUris,
      grant_types: grantTypes as string[],
      response_types: ['code'],
      token_endpoint_auth_method: 'none' as const,
      scope: app.scopes.join(' '),
    };
  }

  /** The dynamically registered clients with live grants in the organization. */
  async listConnected(organizationId: string): Promise<ConnectedClient[]> {
    const rows = await oauthClientsRepository.listConnectedGrants(this.deps.database.db, organizationId);
    const byApp = new Map<string, ConnectedClient>();
    for (const r of rows) {
      let c = byApp.get(r.oauthAppId);
      if (!c) {
        c = {
          oauthAppId: r.oauthAppId,
          clientId: r.clientId,
          name: r.name,
          redirectUris: r.redirectUris,
          scopes: [],
          userIds: [],
          grants: 0,
          registeredAt: r.registeredAt.toISOString(),
          connectedAt: r.grantedAt.toISOString(),
        };
        byApp.set(r.oauthAppId, c);
      }
      c.grants += 1;
      for (const s of r.scopes) if (!c.scopes.includes(s)) c.scopes.push(s);
      if (!c.userIds.includes(r.userId)) c.userIds.push(r.userId);
      if (r.grantedAt.toISOString() < c.connectedAt) c.connectedAt = r.grantedAt.toISOString();
    }
    return [...byApp.values()];
  }

  /** Disconnects a client from the organization: its grants and every token issued under them end now. */
  async revokeConnected(organizationId: string, oauthAppId: string): Promise<void> {
    const n = await this.deps.database.db
      .transaction()
      .execute((tx) => oauthClientsRepository.revokeClientGrants(tx, organizationId, oauthAppId, this.deps.clock.now()));
    if (n === 0) throw new AppError('oauth_app_not_found', { message: 'No client with live grants in this organization has this id.' });
  }
}
