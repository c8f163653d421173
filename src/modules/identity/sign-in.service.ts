/**
 * Browser sign-in: email + password (scrypt) -> a single-use code + nonce bound to a short-lived
 * HttpOnly cookie and the requesting dashboard origin -> exchanged once for a dashboard session.
 * Every refusal of the exchange is the same error, so a caller learns nothing about which check failed.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../platform/errors.js';
import { digest } from '../../platform/secrets/api-key-secret.js';
import { hashPassword, verifyPassword } from '../../platform/secrets/password.js';
import type { AppDeps } from '../app-deps.js';
import { identityRepository } from './identity.repository.js';
import { policiesOf, type Role } from './policies.js';
import type { SessionService } from './sessions.service.js';
import { signInRepository } from './sign-in.repository.js';

export const EXCHANGE_TTL_MS = 60_000;
const ATTEMPT_WINDOW_MS = 15 * 60_000;

const hashEquals = (a: string, b: string) => {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
};

export class SignInService {
  /** the hash an unknown email is checked against, made on the first such sign-in */
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'counters' | 'clock'>,
    private readonly sessions: SessionService,
  ) {}

  private tooMany(now: number, windowStart: number): AppError {
    const retry = Math.max(1, Math.ceil((windowStart + ATTEMPT_WINDOW_MS - now) / 1000));
    return new AppError('public_api_rate_limited', {
      message: `Too many sign-in attempts; retry in ${retry} s.`,
      headers: { 'retry-after': String(retry) },
    });
  }

  /**
   * Three limits in 15-minute windows: every attempt per client address (password spraying from one
   * place); failures per account and address together (guessing one account from one place); and
   * failures per account from everywhere, at a much higher threshold (a distributed guess). An attacker
   * elsewhere exhausts only their own pair, so they cannot lock the owner out. A failure is reserved
   * before the password is checked (so concurrent guesses cannot overshoot) and given back on success.
   */
  async start(input: { email: string; password: string; origin: string; clientAddress: string }) {
    const env = this.deps.config.env;
    const email = input.email.trim().toLowerCase();
    const counters = this.deps.counters.shared;
    const now = this.deps.clock.now().getTime();
    const windowStart = Math.floor(now / ATTEMPT_WINDOW_MS) * ATTEMPT_WINDOW_MS;
    const ttl = ATTEMPT_WINDOW_MS + 1000;
    const account = digest(email);
    const addressKey = `signin:addr:${input.clientAddress}:${windowStart}`;
    const pairKey = `signin:fail:acct-addr:${account}:${digest(input.clientAddress)}:${windowStart}`;
    const accountKey = `signin:fail:acct:${account}:${windowStart}`;
    if (!(await counters.consume(addressKey, 1, env.SERVICE_SIGN_IN_MAX_ATTEMPTS_PER_ADDRESS, ttl)).allowed)
      throw this.tooMany(now, windowStart);
    if (!(await counters.consume(pairKey, 1, env.SERVICE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT_ADDRESS, ttl)).allowed)
      throw this.tooMany(now, windowStart);
    if (!(await counters.consume(accountKey, 1, env.SERVICE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT, ttl)).allowed) {
      await counters.increment(pairKey, -1, ttl);
      throw this.tooMany(now, windowStart);
    }
    const db = this.deps.database.db;
    const user = await identityRepository.findUserByEmail(db, email);
    // an unknown user costs the same scrypt work as a known one
    this.dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
    const ok = await verifyPassword(input.password, user?.password_hash ?? (await this.dummyHash));
    const membership = user && ok ? await signInRepository.primaryMembership(db, user.id) : null;
    if (!user || !ok || !membership) throw new AppError('sign_in_failed');
    // a success is not a failure: give back the reservations (the pair's count starts over)
    await counters.deleteKey(pairKey);
    await counters.increment(accountKey, -1, ttl);

    const at = this.deps.clock.now();
    const code = randomBytes(32).toString('base64url');
    const nonce = randomBytes(16).toString('base64url');
    const binding = randomBytes(32).toString('base64url');
    const expiresAt = new Date(at.getTime() + EXCHANGE_TTL_MS);
    await signInRepository.insertExchangeCode(db, {
      codeHash: digest(code),
      nonceHash: digest(nonce),
      bindingHash: digest(binding),
      origin: input.origin,
      organizationId: membership.organization_id,
      userId: user.id,
      expiresAt,
      at,
    });
    return { authorizationCode: code, nonce, expiresAt, binding };
  }

  async exchange(input: { authorizationCode: string; nonce: string; binding: string | undefined; origin: string | undefined }) {
    const db = this.deps.database.db;
    const now = this.deps.clock.now();
    const row = await signInRepository.consumeExchangeCode(db, digest(input.authorizationCode), now);
    const valid =
      row !== null &&
      input.binding !== undefined &&
      input.origin !== undefined &&
      row.expires_at.getTime() > now.getTime() &&
      hashEquals(digest(input.nonce), row.nonce_hash) &&
      hashEquals(digest(input.binding), row.binding_hash) &&
      row.origin === input.origin;
    if (!valid || !row) throw new AppError('browser_session_exchange_failed');
    const member = await signInRepository.membership(db, row.organization_id, row.user_id);
    if (!member) throw new AppError('browser_session_exchange_failed');
    const session = await db
      .transaction()
      .execute((tx) => this.sessions.create(tx, { organizationId: row.organization_id, userId: row.user_id }));
    return {
      token: session.token,
      body: {
        user: { userId: row.user_id, email: member.email, displayName: member.display_name },
        organizationId: row.organization_id,
        role: member.role as Role,
        expiresAt: session.expiresAt.toISOString(),
      },
    };
  }

  async me(organizationId: string, userId: string) {
    const member = await signInRepository.membership(this.deps.database.db, organizationId, userId);
    if (!member) throw new AppError('dashboard_session_required');
    return {
      user: { userId, email: member.email, displayName: member.display_name },
      organization: { organizationId, name: member.name },
      role: member.role as Role,
      policies: policiesOf(member.role),
    };
  }
}
