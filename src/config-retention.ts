/**
 * The environment settings of the tables that only grow: how long their rows are kept and how the
 * maintenance prune (src/modules/maintenance) deletes them. A part of EnvSchema (src/config.ts), spread
 * there after the webhook settings (whose SERVICE_WEBHOOK_RETENTION_DAYS is the delivery log's).
 */
import { Int } from './config-fields.js';

export const RETENTION_SETTINGS = {
  SERVICE_EVENT_RETENTION_DAYS: Int(
    30,
    'Retention: days an event outbox row is kept after its fan-out (one not yet fanned out, still named by a webhook delivery, or the newest of its sequence stays).',
    1,
  ),
  SERVICE_PROVIDER_WEBHOOK_RETENTION_DAYS: Int(
    30,
    'Retention: days a processed inbound platform webhook delivery (payload and dedupe key) is kept; unprocessed ones stay.',
    1,
  ),
  SERVICE_AUTOMATION_RUN_RETENTION_DAYS: Int(
    90,
    'Retention: days a finished automation run is kept in the run log (GET /v1/automation-runs); queued and running runs stay.',
    1,
  ),
  SERVICE_JOB_ARCHIVE_AFTER_SECONDS: Int(
    43_200,
    'Retention: seconds a completed job stays in the job queue table before pg-boss moves it to its archive.',
    60,
  ),
  SERVICE_JOB_ARCHIVE_RETENTION_DAYS: Int(1, 'Retention: days pg-boss keeps an archived job before it deletes it.', 1),
  SERVICE_PRUNE_BATCH_SIZE: Int(
    1_000,
    'Maintenance prune: rows one delete statement removes (one short transaction each; the job runs every minute).',
    1,
    100_000,
  ),
  SERVICE_PRUNE_MAX_BATCHES: Int(200, 'Maintenance prune: most batches per table in one run; what is left waits for the next run.', 1),
};
