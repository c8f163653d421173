/**
 * Dashboard sessions: opaque 256-bit tokens stored as sha256 digests, with an absolute expiry
 * (expires_at) and a sliding idle expiry renewed on use (written at most once a minute per session).
 */
import { randomBytes } from 'node:crypto';
import { newId } from '../../platform/ids.js';
import { digest } from '../../platform/secrets/api-key-secret.js';
import type { AppDeps } from '../app-deps.js';
import type { Executor } from '../database.js';
import { sessionsRepository } from './sessions.repository.js';

const TOUCH_EVERY_MS = 60_000;

export interface ResolvedSession {
  sessionId: string;
  organizationId: string;
  userId: string;
  email: string;
  role: string;
  expiresAt: Date;
}

export class SessionService {
  constructor(private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock'>) {}

  async create(tx: Executor, input: { organizationId: string; userId: string }) {
    const env = this.deps.config.env;
    const now = this.deps.clock.now();
    const token = `sds_${randomBytes(32).toString('base64url')}`;
    const sessionId = newId('ses');
    const expiresAt = new Date(now.getTime() + env.SERVICE_DASHBOARD_SESSION_ABSOLUTE_SECONDS * 1000);
    const idleExpiresAt = new Date(Math.min(expiresAt.getTime(), now.getTime() + env.SERVICE_DASHBOARD_SESSION_IDLE_SECONDS * 1000));
    await sessionsRepository.insert(tx, {
      id: sessionId,
      organizationId: input.organizationId,
      userId: input.userId,
      tokenHash: digest(token),
      expiresAt,
      idleExpiresAt,
      at: now,
    });
    return { token, sessionId, expiresAt };
  }

  async resolve(token: string): Promise<ResolvedSession | null> {
    if (!/^sds_[A-Za-z0-9_-]{20,}$/.test(token)) return null;
    const now = this.deps.clock.now();
    const db = this.deps.database.db;
    const row = await sessionsRepository.findLiveByTokenHash(db, digest(token), now);
    if (!row) return null;
    const last = row.last_seen_at?.getTime() ?? 0;
    if (now.getTime() - last >= TOUCH_EVERY_MS) {
      const idle = Math.min(row.expires_at.getTime(), now.getTime() + this.deps.config.env.SERVICE_DASHBOARD_SESSION_IDLE_SECONDS * 1000);
      await sessionsRepository.touch(db, row.organization_id, row.id, now, new Date(idle));
    }
    return {
      sessionId: row.id,
      organizationId: row.organization_id,
      userId: row.user_id,
      email: row.email,
      role: row.role,
      expiresAt: row.expires_at,
    };
  }

  async revoke(organizationId: string, sessionId: string) {
    await sessionsRepository.revoke(this.deps.database.db, organizationId, sessionId, this.deps.clock.now());
  }
}
