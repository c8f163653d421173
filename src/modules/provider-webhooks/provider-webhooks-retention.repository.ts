/**
 * The retention prune of inbound platform deliveries (the maintenance job's step): one bounded batch of
 * processed deliveries received before the cutoff, chosen by provider_webhook_deliveries_received. A
 * delivery not yet processed stays whatever its age; a pruned one's dedupe key goes with it, so a
 * platform's redelivery of it after the retention would be processed again.
 */
import { sql } from 'kysely';
import type { Db } from '../database.js';

export const providerWebhooksRetentionRepository = {
  async pruneProcessed(db: Db, cutoff: Date, limit: number): Promise<number> {
    const r = await sql`
      delete from provider_webhook_deliveries where id in (
        select id from provider_webhook_deliveries
        where received_at < ${cutoff} and processed_at is not null
        order by received_at
        limit ${limit}
        for update skip locked)`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },
};
