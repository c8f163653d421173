/**
 * SQL of `channel_connect_states`, the single-use OAuth connect states (connect-states.ts holds their
 * secrets and checks). The callback learns the organization from the state itself, so the one lookup by
 * id is not scoped; the consume that follows it is. The purge is the lifecycle job's housekeeping
 * across organizations.
 */
import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../database.js';
import type { ChannelConnectStatesTable } from './channels.tables.js';

const DAY_MS = 86_400_000;

export const connectStatesRepository = {
  async insert(db: Executor, row: Insertable<ChannelConnectStatesTable>): Promise<void> {
    await db.insertInto('channel_connect_states').values(row).execute();
  },

  /** The state of an id, of any organization: the callback names nothing else. */
  async byId(db: Executor, id: string): Promise<Selectable<ChannelConnectStatesTable> | null> {
    return (await db.selectFrom('channel_connect_states').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  },

  /** Marks the state used; false when it was already used or has expired. */
  async consume(db: Executor, organizationId: string, id: string, now: Date): Promise<boolean> {
    const res = await db
      .updateTable('channel_connect_states')
      .set({ consumed_at: now })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(res.numUpdatedRows ?? 0) === 1;
  },

  /** Housekeeping across organizations: states expired for a day are deleted. */
  async purgeExpired(db: Executor, now: Date): Promise<number> {
    const res = await db
      .deleteFrom('channel_connect_states')
      .where('expires_at', '<', new Date(now.getTime() - DAY_MS))
      .executeTakeFirst();
    return Number(res.numDeletedRows ?? 0);
  },
};
