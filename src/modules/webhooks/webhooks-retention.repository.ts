/**
 * The retention prune of the delivery log and of the event outbox the deliveries are made from: the
 * maintenance job's steps, across organizations (a row's age, not its owner, decides). Each call deletes
 * one bounded batch chosen by an index, rows another transaction holds skipped (`skip locked`).
 */
import { sql } from 'kysely';
import type { Db } from '../database.js';

export const webhooksRetentionRepository = {
  /**
   * Finished deliveries (delivered or failed) created before the cutoff; their attempts go with them
   * (cascade, by the attempts' primary key, delivery then attempt). Pending deliveries stay whatever their age.
   */
  async pruneDeliveries(db: Db, cutoff: Date, limit: number): Promise<number> {
    const r = await sql`
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries
        where created_at < ${cutoff} and status <> 'pending'
        order by created_at
        limit ${limit}
        for update skip locked)`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },

  /**
   * Events created before the cutoff that are no longer needed: fanned out, named by no delivery (a
   * delivery's send reads its event), and not the newest of their sequence (the next event of that
   * resource continues its number from it).
   */
  async pruneEvents(db: Db, cutoff: Date, limit: number): Promise<number> {
    const r = await sql`
      delete from events where id in (
        select e.id from events e
        where e.created_at < ${cutoff}
          and e.fanned_out_at is not null
          and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
          and (e.sequence_key is null
               or exists (select 1 from events n where n.sequence_key = e.sequence_key and n.sequence > e.sequence))
        order by e.created_at
        limit ${limit}
        for update of e skip locked)`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },
};
