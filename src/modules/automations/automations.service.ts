/** Automation sources (CRUD, soft delete) and runs (create, list, status moves through the run table). */
import { Value } from '@sinclair/typebox/value';
import { Cron } from 'croner';
import { decodeCursor, page } from '../../http/pagination.js';
import { AppError, type ErrorCode } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { isValidTimeZone } from '../../platform/time/zoned-time.js';
import type { AppDeps } from '../app-deps.js';
import type { Executor } from '../database.js';
import { type RunRow, automationsRepository as repo, type SourceRow } from './automations.repository.js';
import {
  type AutomationRunT,
  type AutomationSourceT,
  CONFIG_SCHEMAS,
  RUN_ID_PREFIX,
  type RunCreateT,
  type RunQueryT,
  type RunRecordT,
  type RunStatus,
  type RunTrigger,
  SOURCE_ID_PREFIX,
  type SourceCreateT,
  type SourceKind,
  type SourceQueryT,
  type SourceUpdateT,
} from './automations.schemas.js';
import type { AutomationRunOutput } from './automations.tables.js';
import { canMove, isTerminal } from './run-states.js';
import { checkSourceReferences, type SourceReferencePorts } from './source-references.js';

export const AUTOMATION_RUN_QUEUE = 'automations.run';
export const RUN_QUEUE_OPTIONS = { retryLimit: 2, retryDelay: 5, retryBackoff: true, expireInSeconds: 900 };

const toSource = (r: SourceRow): AutomationSourceT => ({
  automationSourceId: r.id,
  organizationId: r.organization_id,
  brandId: r.brand_id,
  kind: r.kind as SourceKind,
  name: r.name,
  enabled: r.enabled,
  config: r.config,
  schedule: r.schedule,
  lastRunAt: r.last_run_at ? r.last_run_at.toISOString() : null,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

const toRun = (r: RunRow): AutomationRunT => ({
  automationRunId: r.id,
  automationSourceId: r.source_id,
  status: r.status as RunStatus,
  trigger: r.trigger as RunTrigger,
  dryRun: r.dry_run,
  startedAt: r.started_at ? r.started_at.toISOString() : null,
  finishedAt: r.finished_at ? r.finished_at.toISOString() : null,
  error: r.error,
  output: r.output,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

const emptyOutput = (): AutomationRunOutput => ({ publishJobIds: [], publishBatchIds: [], itemsSeen: 0, itemsCreated: 0 });

/** Kind defaults the contract leaves open, applied once at write time so a stored config is complete. */
function withDefaults(kind: SourceKind, config: Record<string, unknown>): Record<string, unknown> {
  if (kind === 'rss_feed') return { mode: 'draft', maxItemsPerRun: 5, backfill: 'none', textTemplate: '{{title}} {{link}}', ...config };
  return config;
}

function checkConfig(kind: SourceKind, config: Record<string, unknown>, code: ErrorCode): void {
  const schema = CONFIG_SCHEMAS[kind];
  const first = Value.Errors(schema, config).First();
  if (first) {
    throw new AppError(code, {
      message: `config${first.path.replace(/\//g, '.')}: ${first.message}`,
      fields: [{ path: ['config', ...first.path.split('/').filter(Boolean)], source: 'body' }],
    });
  }
}

function checkSchedule(schedule: { cron: string; timezone: string } | null | undefined, code: ErrorCode): void {
  if (!schedule) return;
  if (!isValidTimeZone(schedule.timezone)) {
    throw new AppError(code, {
      message: `Unknown time zone ${schedule.timezone}.`,
      fields: [{ path: ['schedule', 'timezone'], source: 'body' }],
    });
  }
  try {
    new Cron(schedule.cron, { timezone: schedule.timezone, paused: true }).stop();
  } catch (err) {
    throw new AppError(code, {
      message: `schedule.cron is not a valid cron expression: ${(err as Error).message}`,
      fields: [{ path: ['schedule', 'cron'], source: 'body' }],
    });
  }
}

export class AutomationsService {
  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock' | 'jobs' | 'events'>,
    /** what a source may refer to: the brand, channels, profile and products (read ports), and the feed URL check */
    private readonly refs: SourceReferencePorts,
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  private assertWritable(): void {
    if (!this.deps.config.gateOpen('SERVICE_AUTOMATION_WRITE_ENABLED')) throw new AppError('automation_write_disabled');
  }

  async listSources(organizationId: string, q: SourceQueryT) {
    const limit = q.limit ?? 50;
    const filters = { brandId: q.brandId, kind: q.kind, enabled: q.enabled };
    const afterId = decodeCursor(q.cursor, filters, 'invalid_public_automation_source_query');
    const rows = await repo.listSources(this.db, organizationId, { ...filters, afterId, limit });
    const { data, nextCursor } = page(rows, limit, (r) => r.id, filters);
    return { data: data.map(toSource), nextCursor };
  }

  async createSource(organizationId: string, body: SourceCreateT): Promise<AutomationSourceT> {
    this.assertWritable();
    const code = 'invalid_public_automation_source_create_request';
    const config = withDefaults(body.kind, (body.config ?? {}) as Record<string, unknown>);
    checkConfig(body.kind, config, code);
    checkSchedule(body.schedule, code);
    if (!(await this.refs.brands.brand(this.db, organizationId, body.brandId))) {
      throw new AppError('brand_not_found', { message: `No brand ${body.brandId} in the principal organization.` });
    }
    await checkSourceReferences(this.refs, this.db, organizationId, body.brandId, body.kind, config, code);
    const at = this.deps.clock.now();
    const row: SourceRow = {
      id: newId(SOURCE_ID_PREFIX),
      organization_id: organizationId,
      brand_id: body.brandId,
      kind: body.kind,
      name: body.name,
      enabled: body.enabled ?? true,
      config,
      schedule: body.schedule ?? null,
      state: {},
      last_run_at: null,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    };
    try {
      await repo.insertSource(this.db, row);
    } catch (err) {
      throw new AppError('automation_source_create_failed', { cause: err });
    }
    return toSource(row);
  }

  async updateSource(organizationId: string, id: string, body: SourceUpdateT): Promise<AutomationSourceT> {
    this.assertWritable();
    const code = 'invalid_public_automation_source_update_request';
    return this.db.transaction().execute(async (tx) => {
      const current = await repo.getSource(tx, organizationId, id, { forUpdate: true });
      if (!current) throw new AppError('automation_source_not_found');
      const kind = current.kind as SourceKind;
      let config: Record<string, unknown> | undefined;
      if (body.config !== undefined) {
        config = { ...current.config, ...(body.config as Record<string, unknown>) };
        for (const [k, v] of Object.entries(config)) if (v === null) delete config[k];
        config = withDefaults(kind, config);
        checkConfig(kind, config, code);
        await checkSourceReferences(this.refs, tx, organizationId, current.brand_id, kind, config, code);
      }
      checkSchedule(body.schedule, code);
      await repo.updateSource(tx, organizationId, id, {
        name: body.name,
        enabled: body.enabled,
        config,
        schedule: body.schedule,
        at: this.deps.clock.now(),
      });
      return toSource((await repo.getSource(tx, organizationId, id))!);
    });
  }

  async deleteSource(organizationId: string, id: string): Promise<void> {
    this.assertWritable();
    if (!(await repo.softDeleteSource(this.db, organizationId, id, this.deps.clock.now())))
      throw new AppError('automation_source_not_found');
  }

  async listRuns(organizationId: string, q: RunQueryT) {
    const limit = q.limit ?? 50;
    const filters = { automationSourceId: q.automationSourceId, status: q.status };
    const beforeId = decodeCursor(q.cursor, filters, 'invalid_public_automation_run_query');
    const rows = await repo.listRuns(this.db, organizationId, { sourceId: q.automationSourceId, status: q.status, beforeId, limit });
    const { data, nextCursor } = page(rows, limit, (r) => r.id, filters);
    return { data: data.map(toRun), nextCursor };
  }

  /**
   * A run. A dry run (the default) is stored nowhere: `preview` computes it now (built-in kinds: what the
   * run would create, ended succeeded or failed; an external source's run is answered queued, as an agent
   * would receive it) and the answer carries a fresh run id that names no stored run (reading it is 404).
   */
  async createRun(
    organizationId: string,
    body: RunCreateT,
    preview: (source: SourceRow, run: RunRow) => Promise<RunRow>,
  ): Promise<AutomationRunT> {
    this.assertWritable();
    const trigger = body.trigger ?? 'manual';
    if (body.dryRun !== false) {
      const source = await repo.getSource(this.db, organizationId, body.automationSourceId);
      if (!source?.enabled) throw new AppError('automation_source_not_runnable');
      const row = this.newRun(source, { trigger, dryRun: true, tickKey: null });
      return toRun(source.kind === 'external' ? row : await preview(source, row));
    }
    await this.ensureRunQueue();
    const run = await this.db.transaction().execute(async (tx) => {
      const source = await repo.getSource(tx, organizationId, body.automationSourceId);
      if (!source?.enabled) throw new AppError('automation_source_not_runnable');
      return this.insertRun(tx, source, { trigger, dryRun: false, tickKey: null });
    });
    return toRun(run!);
  }

  private runQueueReady = false;
  async ensureRunQueue(): Promise<void> {
    if (this.runQueueReady) return;
    await this.deps.jobs.ensureQueue({ name: AUTOMATION_RUN_QUEUE, handler: async () => undefined });
    this.runQueueReady = true;
  }

  /** Inserts a queued run; with a tick key, returns null when that tick already has its run. */
  async insertRun(
    tx: Executor,
    source: SourceRow,
    opts: { trigger: RunTrigger; dryRun: boolean; tickKey: string | null },
  ): Promise<RunRow | null> {
    const row = this.newRun(source, opts);
    if (!(await repo.insertRun(tx, row))) return null;
    await repo.touchSourceRun(tx, source.organization_id, source.id, row.created_at);
    // built-in kinds run in the worker; external runs wait for an outside agent
    if (source.kind !== 'external') {
      await this.deps.jobs.send(
        AUTOMATION_RUN_QUEUE,
        { organizationId: source.organization_id, automationRunId: row.id },
        { tx, ...RUN_QUEUE_OPTIONS },
      );
    }
    return row;
  }

  /** A queued run of the source (not stored). */
  private newRun(source: SourceRow, opts: { trigger: RunTrigger; dryRun: boolean; tickKey: string | null }): RunRow {
    const at = this.deps.clock.now();
    return {
      id: newId(RUN_ID_PREFIX),
      organization_id: source.organization_id,
      source_id: source.id,
      status: 'queued',
      trigger: opts.trigger,
      dry_run: opts.dryRun,
      tick_key: opts.tickKey,
      started_at: null,
      finished_at: null,
      error: null,
      output: emptyOutput(),
      created_at: at,
      updated_at: at,
    };
  }

  async recordStatus(organizationId: string, id: string, body: RunRecordT): Promise<AutomationRunT> {
    this.assertWritable();
    return this.db.transaction().execute(async (tx) => {
      const run = await repo.getRun(tx, organizationId, id, { forUpdate: true });
      if (!run) throw new AppError('automation_run_not_found');
      return toRun(await this.move(tx, run, body.status as RunStatus, { error: body.error, output: body.output }));
    });
  }

  /** One move through the run table, with its event when the run ends in success or failure. */
  async move(
    tx: Executor,
    run: RunRow,
    to: RunStatus,
    extra: { error?: { class: string; message: string }; output?: Partial<AutomationRunOutput> } = {},
  ): Promise<RunRow> {
    const from = run.status as RunStatus;
    if (!canMove(from, to)) {
      throw new AppError('automation_run_invalid_transition', {
        message: isTerminal(from) ? `The run is ${from}; a finished run cannot change.` : `A ${from} run cannot become ${to}.`,
      });
    }
    const at = this.deps.clock.now();
    const output = extra.output ? { ...run.output, ...extra.output } : run.output;
    const error = to === 'failed' ? (extra.error ?? { class: 'failed', message: 'The run failed.' }) : (extra.error ?? run.error);
    const next: RunRow = {
      ...run,
      status: to,
      started_at: to === 'running' ? at : run.started_at,
      finished_at: isTerminal(to) ? at : run.finished_at,
      error,
      output,
      updated_at: at,
    };
    await repo.updateRun(tx, run.id, {
      status: to,
      startedAt: to === 'running' ? at : undefined,
      finishedAt: isTerminal(to) ? at : undefined,
      error,
      output,
      at,
    });
    if (to === 'succeeded' || to === 'failed') {
      await this.deps.events.record(tx, {
        organizationId: run.organization_id,
        type: to === 'succeeded' ? 'automation_run.succeeded' : 'automation_run.failed',
        data: toRun(next),
        sequenceKey: run.id,
      });
    }
    return next;
  }
}
