/** Automation queries; every one is scoped by organization id. */

import type { Selectable } from 'kysely';
import { keysetPage } from '../../platform/db/keyset.js';
import type { Executor } from '../database.js';
import type { AutomationRunsTable, AutomationSourcesTable } from './automations.tables.js';

export type SourceRow = Selectable<AutomationSourcesTable>;
export type RunRow = Selectable<AutomationRunsTable>;

export const automationsRepository = {
  async listSources(
    db: Executor,
    organizationId: string,
    q: { brandId?: string; kind?: string; enabled?: boolean; afterId: string | null; limit: number },
  ): Promise<SourceRow[]> {
    let query = db
      .selectFrom('automation_sources')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null);
    if (q.brandId) query = query.where('brand_id', '=', q.brandId);
    if (q.kind) query = query.where('kind', '=', q.kind);
    if (q.enabled !== undefined) query = query.where('enabled', '=', q.enabled);
    return keysetPage(query, 'id', q.afterId, q.limit).execute();
  },

  async getSource(db: Executor, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<SourceRow | null> {
    let query = db
      .selectFrom('automation_sources')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null);
    if (opts.forUpdate) query = query.forUpdate();
    return (await query.executeTakeFirst()) ?? null;
  },

  async insertSource(db: Executor, row: SourceRow): Promise<void> {
    await db
      .insertInto('automation_sources')
      .values({
        ...row,
        config: JSON.stringify(row.config),
        schedule: row.schedule ? JSON.stringify(row.schedule) : null,
        state: JSON.stringify(row.state),
      })
      .execute();
  },

  async updateSource(
    db: Executor,
    organizationId: string,
    id: string,
    patch: { name?: string; enabled?: boolean; config?: Record<string, unknown>; schedule?: SourceRow['schedule']; at: Date },
  ): Promise<void> {
    await db
      .updateTable('automation_sources')
      .set({
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
        ...(patch.config !== undefined ? { config: JSON.stringify(patch.config) } : {}),
        ...(patch.schedule !== undefined ? { schedule: patch.schedule ? JSON.stringify(patch.schedule) : null } : {}),
        updated_at: patch.at,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  async softDeleteSource(db: Executor, organizationId: string, id: string, at: Date): Promise<boolean> {
    const r = await db
      .updateTable('automation_sources')
      .set({ deleted_at: at, updated_at: at, enabled: false })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  async insertRun(db: Executor, row: RunRow): Promise<boolean> {
    const r = await db
      .insertInto('automation_runs')
      .values({ ...row, error: row.error ? JSON.stringify(row.error) : null, output: JSON.stringify(row.output) })
      .onConflict((oc) => oc.columns(['source_id', 'tick_key']).where('tick_key', 'is not', null).doNothing())
      .returning('id')
      .executeTakeFirst();
    return !!r;
  },

  async touchSourceRun(db: Executor, organizationId: string, sourceId: string, at: Date): Promise<void> {
    await db
      .updateTable('automation_sources')
      .set({ last_run_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', sourceId)
      .execute();
  },

  async listRuns(
    db: Executor,
    organizationId: string,
    q: { sourceId?: string; status?: string; beforeId: string | null; limit: number },
  ): Promise<RunRow[]> {
    let query = db.selectFrom('automation_runs').selectAll().where('organization_id', '=', organizationId);
    if (q.sourceId) query = query.where('source_id', '=', q.sourceId);
    if (q.status) query = query.where('status', '=', q.status);
    return keysetPage(query, 'id', q.beforeId, q.limit, 'desc').execute();
  },

  async getRun(db: Executor, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<RunRow | null> {
    let query = db.selectFrom('automation_runs').selectAll().where('organization_id', '=', organizationId).where('id', '=', id);
    if (opts.forUpdate) query = query.forUpdate();
    return (await query.executeTakeFirst()) ?? null;
  },

  async updateRun(
    db: Executor,
    id: string,
    patch: { status: string; startedAt?: Date; finishedAt?: Date; error?: RunRow['error']; output?: RunRow['output']; at: Date },
  ): Promise<void> {
    await db
      .updateTable('automation_runs')
      .set({
        status: patch.status,
        ...(patch.startedAt ? { started_at: patch.startedAt } : {}),
        ...(patch.finishedAt ? { finished_at: patch.finishedAt } : {}),
        ...(patch.error !== undefined ? { error: patch.error ? JSON.stringify(patch.error) : null } : {}),
        ...(patch.output !== undefined ? { output: JSON.stringify(patch.output) } : {}),
        updated_at: patch.at,
      })
      .where('id', '=', id)
      .execute();
  },
};
