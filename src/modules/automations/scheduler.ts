/**
 * Schedule ticks: for every enabled source with a schedule, the latest cron time (in the schedule's
 * time zone, DST-correct through croner) that is due and newer than the source's last tick gets one
 * run. The run's tick key is that time; a unique (source, tick key) index makes a second worker or a
 * concurrent internal call insert nothing for the same tick.
 */
import { Cron } from 'croner';
import type { AppDeps } from '../app-deps.js';
import { automationRunnerRepository } from './automation-runner.repository.js';
import type { AutomationsService } from './automations.service.js';

/** The newest tick at or before `now` and after `since` (null when none is due). */
export function dueTick(schedule: { cron: string; timezone: string }, since: Date, now: Date): Date | null {
  const cron = new Cron(schedule.cron, { timezone: schedule.timezone, paused: true });
  let due: Date | null = null;
  let next = cron.nextRun(since);
  for (let i = 0; next && next.getTime() <= now.getTime() && i < 10_000; i++) {
    due = next;
    next = cron.nextRun(next);
  }
  cron.stop();
  return due;
}

/** Queues the due ticks of every organization, or of one when organizationId is given. */
export async function enqueueDueRuns(
  deps: Pick<AppDeps, 'database' | 'clock'>,
  service: AutomationsService,
  organizationId?: string,
): Promise<string[]> {
  const db = deps.database.db;
  const now = deps.clock.now();
  const sources = await automationRunnerRepository.scheduledSources(db, organizationId);
  const created: string[] = [];
  await service.ensureRunQueue();
  for (const source of sources) {
    const since = typeof source.state.lastTickAt === 'string' ? new Date(source.state.lastTickAt) : source.created_at;
    const tick = dueTick(source.schedule!, since, now);
    if (!tick) continue;
    const run = await db.transaction().execute(async (tx) => {
      const inserted = await service.insertRun(tx, source, { trigger: 'schedule', dryRun: false, tickKey: tick.toISOString() });
      await automationRunnerRepository.setSourceState(tx, source.organization_id, source.id, {
        ...source.state,
        lastTickAt: tick.toISOString(),
      });
      return inserted;
    });
    if (run) created.push(run.id);
  }
  return created;
}
