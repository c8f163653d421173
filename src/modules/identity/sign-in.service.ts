/**
 * Browser sign-in: email + password (scrypt) -> a single-use code + nonce bound to a short-lived
 * HttpOnly cookie and the requesting dashboard origin -> exchanged once for a dashboard session.
 * Every refusal of the exchange is the same error, so a caller learns nothing about which check failed.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../platform/errors.js';
import { digest } from '../../platform/secrets/api-key-secret.js';
import { hashPassword, verifyPassword } from '../../platform/secrets/password.js';
import { identityRepository } from './identity.repository.js';
import { policiesOf, type Role } from './policies.js';
import type { SessionService } from './sessions.service.js';
import { signInRepository } from './sign-in.repository.js';

export const EXCHANGE_TTL_MS = 60_000;
const ATTEMPT_WINDOW_MS = 15 * 60_000;

let dummyHash: Promise<string> | null = null;

const hashEquals = (a: string, b: string) => {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
};

export class SignInService {
  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'counters' | 'clock'>,
    private readonly sessions: SessionService,
  ) {}

  private async limit(key: string, max: number) {
    const now = this.deps.clock.now().getTime();
    const windowStart = Math.floor(now / ATTEMPT_WINDOW_MS) * ATTEMPT_WINDOW_MS;
    const r = await this.deps.counters.shared.consume(`signin:${key}:${windowStart}`, 1, max, ATTEMPT_WINDOW_MS + 1000);
    if (!r.allowed) {
      const retry = Math.max(1, Math.ceil((windowStart + ATTEMPT_WINDOW_MS - now) / 1000));
      throw new AppError('public_api_rate_limited', {
        message: `Too many sign-in attempts; retry in ${retry} s.`,
        headers: { 'retry-after': String(retry) },
      });
    }
  }

  async start(input: { email: string; password: string; origin: string; clientAddress: string }) {
    const env = this.deps.config.env;
    const email = input.email.trim().toLowerCase();
    await this.limit(`addr:${input.clientAddress}`, env.SERVICE_SIGN_IN_MAX_ATTEMPTS_PER_ADDRESS);
    await this.limit(`acct:${digest(email)}`, env.SERVICE_SIGN_IN_MAX_ATTEMPTS_PER_ACCOUNT);
    const db = this.deps.database.db;
    const user = await identityRepository.findUserByEmail(db, email);
    // an unknown user costs the same scrypt work as a known one
    dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
    const ok = await verifyPassword(input.password, user?.password_hash ?? (await dummyHash));
    const membership = user && ok ? await signInRepository.primaryMembership(db, user.id) : null;
    if (!user || !ok || !membership) throw new AppError('sign_in_failed');

    const now = this.deps.clock.now();
    const code = randomBytes(32).toString('base64url');
    const nonce = randomBytes(16).toString('base64url');
    const binding = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + EXCHANGE_TTL_MS);
    await signInRepository.insertExchangeCode(db, {
      codeHash: digest(code),
      nonceHash: digest(nonce),
      bindingHash: digest(binding),
      origin: input.origin,
      organizationId: membership.organization_id,
      userId: user.id,
      expiresAt,
      at: now,
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
