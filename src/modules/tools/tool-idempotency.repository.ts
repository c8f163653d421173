/**
 * Idempotency records per (API key, tool, Idempotency-Key). `begin` atomically claims a key with an
 * in-progress marker, or reports the existing record; expired records count as absent. A marker left by a
 * crashed process is taken over after IN_PROGRESS_STALE_MS.
 */
import { sql } from 'kysely';
import type { Db } from '../database.js';

const IN_PROGRESS_STALE_MS = 5 * 60_000;

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type BeginOutcome =
  | { kind: 'claimed' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'conflict' }
  | { kind: 'in_progress' };

export interface IdempotencyScope {
  apiKeyId: string;
  tool: string;
  key: string;
}

export const toolIdempotencyRepository = {
  async begin(db: Db, scope: IdempotencyScope, fingerprint: string, now: Date, ttlMs: number): Promise<BeginOutcome> {
    const expiresAt = new Date(now.getTime() + ttlMs);
    const staleBefore = new Date(now.getTime() - IN_PROGRESS_STALE_MS);
    // One statement: insert, or take over an expired record or a stale marker; otherwise nothing changes.
    const claimed = await db
      .insertInto('tool_idempotency')
      .values({
        api_key_id: scope.apiKeyId,
        tool: scope.tool,
        idempotency_key: scope.key,
        fingerprint,
        state: 'in_progress',
        created_at: now,
        expires_at: expiresAt,
      })
      .onConflict((oc) =>
        oc
          .columns(['api_key_id', 'tool', 'idempotency_key'])
          .doUpdateSet({
            fingerprint,
            state: 'in_progress',
            response_status: null,
            response_body: null,
            response_headers: null,
            created_at: now,
            expires_at: expiresAt,
          })
          .where((eb) =>
            eb.or([
              eb('tool_idempotency.expires_at', '<=', now),
              eb.and([eb('tool_idempotency.state', '=', 'in_progress'), eb('tool_idempotency.created_at', '<', staleBefore)]),
            ]),
          ),
      )
      .returning(sql<number>`1`.as('claimed'))
      .executeTakeFirst();
    if (claimed) return { kind: 'claimed' };
    const existing = await db
      .selectFrom('tool_idempotency')
      .select(['fingerprint', 'state', 'response_status', 'response_body', 'response_headers'])
      .where('api_key_id', '=', scope.apiKeyId)
      .where('tool', '=', scope.tool)
      .where('idempotency_key', '=', scope.key)
      .executeTakeFirst();
    // Removed between the two statements (abandoned by its owner): treat like a busy key.
    if (!existing) return { kind: 'in_progress' };
    if (existing.fingerprint !== fingerprint) return { kind: 'conflict' };
    if (existing.state === 'in_progress') return { kind: 'in_progress' };
    return {
      kind: 'replay',
      response: {
        status: existing.response_status ?? 200,
        body: existing.response_body ?? '',
        headers: existing.response_headers ?? {},
      },
    };
  },

  async complete(db: Db, scope: IdempotencyScope, response: StoredResponse): Promise<void> {
    await db
      .updateTable('tool_idempotency')
      .set({
        state: 'completed',
        response_status: response.status,
        response_body: response.body,
        response_headers: JSON.stringify(response.headers),
      })
      .where('api_key_id', '=', scope.apiKeyId)
      .where('tool', '=', scope.tool)
      .where('idempotency_key', '=', scope.key)
      .execute();
  },

  /** Drops the marker of a request whose outcome is not stored (400/401/403/409/429, errors). */
  async abandon(db: Db, scope: IdempotencyScope): Promise<void> {
    await db
      .deleteFrom('tool_idempotency')
      .where('api_key_id', '=', scope.apiKeyId)
      .where('tool', '=', scope.tool)
      .where('idempotency_key', '=', scope.key)
      .where('state', '=', 'in_progress')
      .execute();
  },

  async pruneExpired(db: Db, now: Date): Promise<number> {
    const result = await db.deleteFrom('tool_idempotency').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
