/**
 * Turns a presented bearer credential into a Principal, or refuses it. Rejected credentials are
 * remembered for 30 seconds in the shared counter store (the specification's negative cache), so a
 * flood of bad keys costs no database work. Accepted keys are cached in-process for a few seconds:
 * revocation therefore takes effect within POSITIVE_TTL_MS on every process (documented).
 *
 * OAuth access tokens carry an audience (RFC 8707 resource): the REST API (`authenticate`) refuses
 * tokens issued for the MCP endpoint and the MCP endpoint (`authenticateMcp`) accepts nothing else.
 * The MCP endpoint runs its tools through the REST API in process with a delegation (`delegate`): a
 * random credential that exists only in this process's memory, stands for the MCP token's principal
 * (same organization, scopes and rate limit) and is released when the tool call ends.
 */
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../http/principal.js';
import { epochMs } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { digest, digestMatches, keyPrefix } from '../../platform/secrets/api-key-secret.js';
import type { AppDeps } from '../app-deps.js';
import { apiKeysRepository } from './api-keys.repository.js';
import { oauthRepository } from './oauth.repository.js';
import { ACCESS_TOKEN_KIND } from './oauth.service.js';

const DELEGATION_KIND = 'mcd';

const NEGATIVE_CACHE_MS = 30_000;
const POSITIVE_TTL_MS = 5_000;
const LAST_USED_EVERY_MS = 60_000;

interface CachedPrincipal {
  principal: Principal;
  apiKeyId: string;
  expiresAt: number;
}

export class Authenticator {
  private readonly positive = new Map<string, CachedPrincipal>();
  private readonly lastUsedWritten = new Map<string, number>();
  private readonly delegations = new Map<string, Principal>();

  constructor(private readonly deps: Pick<AppDeps, 'config' | 'database' | 'counters' | 'clock'>) {}

  private negativeKey(tokenDigest: string) {
    return `auth:neg:${tokenDigest}`;
  }

  /** The MCP endpoint as the resource its tokens are bound to. */
  get mcpResource(): string {
    return `${this.deps.config.publicBaseUrl}/mcp`;
  }

  /**
   * An in-process credential for the principal of an MCP token, used to call the REST API in process
   * (never sent over a network, never stored); release() ends it.
   */
  delegate(principal: Principal): { token: string; release(): void } {
    const token = `${DELEGATION_KIND}_${randomBytes(32).toString('base64url')}`;
    this.delegations.set(token, principal);
    return { token, release: () => this.delegations.delete(token) };
  }

  /** The principal of an access token issued for the MCP endpoint; throws 401 public_api_token_forbidden otherwise. */
  async authenticateMcp(token: string): Promise<Principal> {
    if (!token.startsWith(`${ACCESS_TOKEN_KIND}_`)) throw forbidden('The MCP endpoint takes OAuth access tokens issued for it.');
    const principal = await this.authenticateAccessToken(digest(token), this.deps.clock.now().getTime(), this.mcpResource);
    if (!principal) throw forbidden();
    return principal;
  }

  /**
   * The principal of a presented credential: answered at once (no promise) for a delegation or a key this
   * process accepted in the last POSITIVE_TTL_MS, most requests; a promise when the database decides. Throws, or
   * rejects with, 401 public_api_token_forbidden for unknown, revoked or expired credentials.
   */
  authenticate(token: string): Principal | Promise<Principal> {
    if (token.startsWith(`${DELEGATION_KIND}_`)) {
      const delegated = this.delegations.get(token);
      if (!delegated) throw forbidden();
      return delegated;
    }
    const tokenDigest = digest(token);
    const now = epochMs(this.deps.clock);
    const cached = this.positive.get(tokenDigest);
    if (cached && cached.expiresAt > now) {
      this.touch(cached, now);
      return cached.principal;
    }
    return this.authenticateStored(token, tokenDigest, now);
  }

  /** A credential not remembered: the negative cache, then the access token or API key in the database. */
  private async authenticateStored(token: string, tokenDigest: string, now: number): Promise<Principal> {
    const negativeOn = !this.deps.config.env.SERVICE_PUBLIC_API_NEGATIVE_CACHE_DISABLED;
    const store = this.deps.counters.shared;
    if (negativeOn && (await store.hasFlag(this.negativeKey(tokenDigest)))) throw forbidden();

    // OAuth access tokens: never cached positively, so a revoked grant or token stops working at once
    if (token.startsWith(`${ACCESS_TOKEN_KIND}_`)) {
      const principal = await this.authenticateAccessToken(tokenDigest, now, null);
      if (principal) return principal;
      if (negativeOn) await store.setFlag(this.negativeKey(tokenDigest), NEGATIVE_CACHE_MS);
      throw forbidden();
    }

    const prefix = keyPrefix(token);
    const record = prefix ? await apiKeysRepository.findByPrefixForAuthentication(this.deps.database.db, prefix) : null;
    const valid =
      record !== null &&
      digestMatches(token, record.secretHash) &&
      record.revokedAt === null &&
      (record.expiresAt === null || record.expiresAt.getTime() > now);
    if (!valid || !record) {
      if (negativeOn) await store.setFlag(this.negativeKey(tokenDigest), NEGATIVE_CACHE_MS);
      throw forbidden();
    }
    const entry: CachedPrincipal = {
      principal: { kind: 'api_key', organizationId: record.organizationId, subjectId: record.id, scopes: record.scopes },
      apiKeyId: record.id,
      expiresAt: now + POSITIVE_TTL_MS,
    };
    if (this.positive.size > 10_000) this.positive.clear();
    this.positive.set(tokenDigest, entry);
    this.touch(entry, now);
    return entry.principal;
  }

  /** audience: null for the REST API, the MCP endpoint's URL for /mcp; a token of the other audience is refused */
  private async authenticateAccessToken(tokenDigest: string, now: number, audience: string | null): Promise<Principal | null> {
    const r = await oauthRepository.findAccessPrincipal(this.deps.database.db, tokenDigest);
    if (!r || r.revoked_at || r.grant_revoked_at || r.deleted_at || r.expires_at.getTime() <= now) return null;
    if (r.resource !== audience) return null;
    if (!this.deps.config.gateOpen('SERVICE_PUBLIC_OAUTH_ENABLED')) throw new AppError('public_oauth_disabled');
    return {
      kind: 'oauth_access_token',
      organizationId: r.organization_id,
      subjectId: r.authorization_id,
      authorizationId: r.authorization_id,
      oauthAppId: r.oauth_app_id,
      userId: r.user_id,
      clientId: r.client_id,
      scopes: r.scopes,
    };
  }

  /** Forgets cached principals (after a revocation in this process). */
  forget(): void {
    this.positive.clear();
  }

  // last_used_at is written at most once a minute per key and off the request path
  private touch(entry: CachedPrincipal, now: number): void {
    const last = this.lastUsedWritten.get(entry.apiKeyId) ?? 0;
    if (now - last < LAST_USED_EVERY_MS) return;
    this.lastUsedWritten.set(entry.apiKeyId, now);
    apiKeysRepository
      .touchLastUsed(this.deps.database.db, entry.principal.organizationId, entry.apiKeyId, new Date(now))
      .catch(() => this.lastUsedWritten.delete(entry.apiKeyId));
  }
}

const forbidden = (message = 'The credential is unknown, revoked, expired or not authorized for this route.') =>
  new AppError('public_api_token_forbidden', { message });
