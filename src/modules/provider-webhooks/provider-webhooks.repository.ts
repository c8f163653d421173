/**
 * SQL of inbound provider deliveries and provisioned subscriptions. These rows belong to no
 * organization, so no statement here is scoped by one: a delivery is stored before it is attributed (it
 * names platform accounts, not an organization; the organizations are reached through the channels and
 * publishing areas when it is processed, and every change made there is scoped), and a subscription is
 * the service's own, per platform and topic.
 */
import type { Executor } from '../database.js';

export const providerWebhooksRepository = {
  /** Records a delivery once; null when (platform, dedupeKey) was recorded before (a retry). */
  async insertDelivery(
    db: Executor,
    row: { id: string; platform: string; dedupeKey: string; payload: unknown; eventCount: number; at: Date },
  ): Promise<string | null> {
    const inserted = await db
      .insertInto('provider_webhook_deliveries')
      .values({
        id: row.id,
        platform: row.platform,
        dedupe_key: row.dedupeKey,
        payload: JSON.stringify(row.payload),
        event_count: row.eventCount,
        received_at: row.at,
        processed_at: null,
        outcome: null,
      })
      .onConflict((oc) => oc.columns(['platform', 'dedupe_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted?.id ?? null;
  },

  async getDelivery(db: Executor, id: string) {
    return (await db.selectFrom('provider_webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  },

  async finishDelivery(db: Executor, id: string, outcome: Record<string, unknown>, at: Date): Promise<void> {
    await db
      .updateTable('provider_webhook_deliveries')
      .set({ processed_at: at, outcome: JSON.stringify(outcome) })
      .where('id', '=', id)
      .execute();
  },

  async upsertSubscription(
    db: Executor,
    row: {
      id: string;
      platform: string;
      topic: string;
      callbackUrl: string;
      state: 'pending' | 'active' | 'failed';
      details: Record<string, unknown>;
      at: Date;
    },
  ): Promise<void> {
    await db
      .insertInto('provider_webhook_subscriptions')
      .values({
        id: row.id,
        platform: row.platform,
        topic: row.topic,
        callback_url: row.callbackUrl,
        state: row.state,
        lease_expires_at: null,
        details: JSON.stringify(row.details),
        created_at: row.at,
        updated_at: row.at,
      })
      .onConflict((oc) =>
        oc.columns(['platform', 'topic']).doUpdateSet({
          callback_url: row.callbackUrl,
          state: row.state,
          details: JSON.stringify(row.details),
          updated_at: row.at,
        }),
      )
      .execute();
  },

  async getSubscription(db: Executor, platform: string, topic: string) {
    return (
      (await db
        .selectFrom('provider_webhook_subscriptions')
        .selectAll()
        .where('platform', '=', platform)
        .where('topic', '=', topic)
        .executeTakeFirst()) ?? null
    );
  },

  async activateSubscription(db: Executor, platform: string, topic: string, leaseExpiresAt: Date | null, at: Date): Promise<void> {
    await db
      .updateTable('provider_webhook_subscriptions')
      .set({ state: 'active', lease_expires_at: leaseExpiresAt, updated_at: at })
      .where('platform', '=', platform)
      .where('topic', '=', topic)
      .execute();
  },

  /**
   * Subscriptions to ask for again: active ones whose lease ends before `leaseEndsBefore`, and pending
   * or failed ones untouched since `stuckSince` (a verification that never came, a refused request).
   */
  async dueForRenewal(db: Executor, platform: string, leaseEndsBefore: Date, stuckSince: Date) {
    return db
      .selectFrom('provider_webhook_subscriptions')
      .selectAll()
      .where('platform', '=', platform)
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'active'), eb('lease_expires_at', '<', leaseEndsBefore)]),
          eb.and([eb('state', 'in', ['pending', 'failed']), eb('updated_at', '<', stuckSince)]),
        ]),
      )
      .orderBy('topic')
      .execute();
  },

  async listSubscriptions(db: Executor, platform: string) {
    return db.selectFrom('provider_webhook_subscriptions').selectAll().where('platform', '=', platform).orderBy('topic').execute();
  },
};
