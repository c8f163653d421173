/**
 * The runner's and scheduler's statements: scheduled sources, a source's kept state, and the feed items
 * a source has seen (its rows name the source, whose organization the caller has already checked).
 */
import type { Executor } from '../database.js';
import type { SourceRow } from './automations.repository.js';

export const automationRunnerRepository = {
  /** Enabled, undeleted sources with a schedule: of one organization, or of every one (the worker's tick). */
  async scheduledSources(db: Executor, organizationId?: string): Promise<SourceRow[]> {
    let query = db
      .selectFrom('automation_sources')
      .selectAll()
      .where('deleted_at', 'is', null)
      .where('enabled', '=', true)
      .where('schedule', 'is not', null);
    if (organizationId) query = query.where('organization_id', '=', organizationId);
    return (await query.execute()) as SourceRow[];
  },

  /** The state a source keeps between runs (feed validators, the last schedule tick). */
  async setSourceState(db: Executor, organizationId: string, sourceId: string, state: Record<string, unknown>): Promise<void> {
    await db
      .updateTable('automation_sources')
      .set({ state: JSON.stringify(state) })
      .where('organization_id', '=', organizationId)
      .where('id', '=', sourceId)
      .execute();
  },

  /** Whether the source has seen any of the keys. */
  async seenAny(db: Executor, sourceId: string, keys: string[]): Promise<boolean> {
    const hit = await db
      .selectFrom('automation_seen_items')
      .select('item_key')
      .where('source_id', '=', sourceId)
      .where('item_key', 'in', keys)
      .executeTakeFirst();
    return !!hit;
  },

  async remember(db: Executor, sourceId: string, keys: string[], at: Date): Promise<void> {
    if (keys.length === 0) return;
    await db
      .insertInto('automation_seen_items')
      .values(keys.map((item_key) => ({ source_id: sourceId, item_key, created_at: at })))
      .onConflict((oc) => oc.columns(['source_id', 'item_key']).doNothing())
      .execute();
  },
};
