/**
 * SQL of the token lifecycle job over `channel_accounts`: its scan and its housekeeping run across
 * organizations (the job serves every organization); each row found is then changed through
 * channels.repository.ts with its own organization id.
 */
import type { Executor } from '../database.js';
import type { ChannelAccountState } from './channel-states.js';

const DAY_MS = 86_400_000;

export const channelLifecycleRepository = {
  /**
   * Housekeeping across organizations: a login that offered several accounts and was never completed
   * leaves an in_between_steps placeholder channel; after a day it is removed with the secrets it holds
   * (cascade).
   */
  async purgeAbandonedChoices(db: Executor, now: Date): Promise<number> {
    const res = await db
      .deleteFrom('channel_accounts')
      .where('state', '=', 'in_between_steps')
      .where('external_account_id', 'like', 'pending:%')
      .where('updated_at', '<', new Date(now.getTime() - DAY_MS))
      .executeTakeFirst();
    return Number(res.numDeletedRows ?? 0);
  },

  /**
   * The token lifecycle's scan across organizations: channels in `states` whose token expires before
   * `horizon` and that are not waiting for a retry, the soonest first (each row is then changed with its
   * own organization id).
   */
  async dueForRefresh(db: Executor, states: readonly ChannelAccountState[], horizon: Date, now: Date, limit: number) {
    return db
      .selectFrom('channel_accounts')
      .selectAll()
      .where('state', 'in', states)
      .where('token_expires_at', 'is not', null)
      .where('token_expires_at', '<=', horizon)
      .where((eb) => eb.or([eb('next_refresh_at', 'is', null), eb('next_refresh_at', '<=', now)]))
      .orderBy('token_expires_at')
      .limit(limit)
      .execute();
  },
};
