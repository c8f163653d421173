/**
 * Dashboard sign-in through an OpenID Connect provider (SERVICE_OIDC_*), with openid-client: discovery,
 * the authorization code flow with PKCE (S256), state and nonce, and the ID token's validation (signature,
 * issuer, audience, expiry, nonce) by the library. The start binds the login to the browser (an HttpOnly
 * cookie, like the password sign-in's exchange) and to its dashboard origin; the callback consumes it once.
 *
 * Who signs in: a provider account already linked to a user; else the user whose email the provider
 * says is verified (the link is made then); else, only when an organization lets the email's domain
 * join (`identity_provider_join_domains`), a new user and membership just in time. Every refusal of the
 * provider's answer is the same error, so a caller learns nothing about which check failed.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as oidc from 'openid-client';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { digest } from '../../platform/secrets/api-key-secret.js';
import type { AppDeps } from '../app-deps.js';
import type { Executor } from '../database.js';
import { identityRepository } from './identity.repository.js';
import { identityProviderRepository as repo } from './identity-provider.repository.js';
import type { Role } from './policies.js';
import type { SessionService } from './sessions.service.js';
import { signInRepository } from './sign-in.repository.js';

export const IDENTITY_PROVIDER_LOGIN_TTL_MS = 10 * 60_000;
const SCOPE = 'openid email profile';
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

const sameHash = (a: string, b: string) => {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
};
const failed = (cause?: unknown) => new AppError('identity_provider_sign_in_failed', cause ? { cause } : {});

interface Person {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

export class IdentityProviderSignIn {
  private discovered: Promise<oidc.Configuration> | null = null;

  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock'>,
    private readonly sessions: SessionService,
  ) {}

  get configured(): boolean {
    const env = this.deps.config.env;
    return Boolean(env.SERVICE_OIDC_ISSUER && env.SERVICE_OIDC_CLIENT_ID);
  }

  info() {
    return { configured: this.configured, name: this.configured ? this.deps.config.env.SERVICE_OIDC_PROVIDER_NAME : null };
  }

  private get redirectUri(): string {
    return this.deps.config.env.SERVICE_OIDC_REDIRECT_URI ?? `${this.deps.config.publicBaseUrl}/app/sign-in/identity-provider`;
  }

  /** The provider's configuration, discovered once per process (again after a failed discovery). */
  private configuration(): Promise<oidc.Configuration> {
    if (!this.configured) throw new AppError('identity_provider_not_configured');
    const env = this.deps.config.env;
    this.discovered ??= (async () => {
      const issuer = new URL(env.SERVICE_OIDC_ISSUER!);
      // plain http only for a provider on this machine (development and tests)
      const insecure = issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname);
      return oidc.discovery(
        issuer,
        env.SERVICE_OIDC_CLIENT_ID!,
        env.SERVICE_OIDC_CLIENT_SECRET,
        env.SERVICE_OIDC_CLIENT_SECRET ? undefined : oidc.None(),
        insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
      );
    })();
    return this.discovered.catch((cause) => {
      this.discovered = null;
      throw new AppError('service_unavailable', { message: 'The identity provider cannot be reached (discovery failed).', cause });
    });
  }

  async start(input: { origin: string; returnTo: string | null }) {
    const config = await this.configuration();
    const now = this.deps.clock.now();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const binding = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + IDENTITY_PROVIDER_LOGIN_TTL_MS);
    await repo.insertLogin(this.deps.database.db, {
      stateHash: digest(state),
      bindingHash: digest(binding),
      origin: input.origin,
      codeVerifier,
      nonce,
      redirectUri: this.redirectUri,
      returnTo: input.returnTo,
      expiresAt,
      at: now,
    });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: SCOPE,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { authorizationUrl: url.href, expiresAt, binding };
  }

  async callback(input: { code: string; state: string; iss?: string; binding: string | undefined; origin: string | undefined }) {
    const config = await this.configuration();
    const db = this.deps.database.db;
    const now = this.deps.clock.now();
    const login = await repo.consumeLogin(db, digest(input.state), now);
    if (
      !login ||
      input.binding === undefined ||
      input.origin !== login.origin ||
      login.expires_at.getTime() <= now.getTime() ||
      !sameHash(digest(input.binding), login.binding_hash)
    )
      throw failed();
    const person = await this.redeem(config, login, input);
    const { userId, organizationId } = await db.transaction().execute((tx) => this.account(tx, person, now));
    const member = await signInRepository.membership(db, organizationId, userId);
    if (!member) throw new AppError('identity_provider_account_not_allowed');
    const session = await db.transaction().execute((tx) => this.sessions.create(tx, { organizationId, userId }));
    return {
      token: session.token,
      body: {
        user: { userId, email: member.email, displayName: member.display_name },
        organizationId,
        role: member.role as Role,
        expiresAt: session.expiresAt.toISOString(),
        returnTo: login.return_to,
      },
    };
  }

  /** The code for tokens at the provider (PKCE verifier, state, nonce, ID token checks), then who it is. */
  private async redeem(
    config: oidc.Configuration,
    login: { redirect_uri: string; code_verifier: string; nonce: string },
    input: { code: string; state: string; iss?: string },
  ): Promise<Person> {
    const current = new URL(login.redirect_uri);
    current.searchParams.set('code', input.code);
    current.searchParams.set('state', input.state);
    if (input.iss !== undefined) current.searchParams.set('iss', input.iss);
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: login.code_verifier,
        expectedState: input.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      let email = typeof claims.email === 'string' ? claims.email : null;
      let verified = claims.email_verified === true;
      let name = typeof claims.name === 'string' ? claims.name : null;
      if (email === null) {
        // some providers put the email only in the userinfo answer
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        email = typeof info.email === 'string' ? info.email : null;
        verified = info.email_verified === true;
        name ??= typeof info.name === 'string' ? info.name : null;
      }
      return { issuer: claims.iss, subject: claims.sub, email: email?.trim().toLowerCase() ?? null, emailVerified: verified, name };
    } catch (cause) {
      throw failed(cause);
    }
  }

  /** The user and organization the person enters: linked, else by verified email, else just in time where allowed. */
  private async account(tx: Executor, p: Person, at: Date): Promise<{ userId: string; organizationId: string }> {
    let userId = await repo.linkedUser(tx, p.issuer, p.subject);
    if (userId) await repo.touchLink(tx, p.issuer, p.subject, at);
    const verifiedEmail = p.emailVerified ? p.email : null;
    const rule = verifiedEmail ? await repo.joinRule(tx, verifiedEmail.split('@')[1] ?? '') : null;
    if (!userId && verifiedEmail) {
      const existing = await identityRepository.findUserByEmail(tx, verifiedEmail);
      if (existing) userId = existing.id;
      else if (rule) {
        userId = newId('usr');
        await identityRepository.insertUser(tx, { id: userId, email: verifiedEmail, passwordHash: null, at });
        if (p.name) await repo.setDisplayName(tx, userId, p.name.slice(0, 200), at);
      }
      if (userId) await repo.link(tx, { issuer: p.issuer, subject: p.subject, userId, email: verifiedEmail, at });
    }
    if (!userId) throw new AppError('identity_provider_account_not_allowed');
    let membership = await signInRepository.primaryMembership(tx, userId);
    if (!membership && rule) {
      await identityRepository.insertMembership(tx, {
        organizationId: rule.organization_id,
        userId,
        role: rule.role as 'member' | 'admin',
      });
      membership = await signInRepository.primaryMembership(tx, userId);
    }
    if (!membership) throw new AppError('identity_provider_account_not_allowed');
    return { userId, organizationId: membership.organization_id };
  }
}
