/**
 * One info line per publish outcome (published, failed, needs attention), written when the outcome's
 * event is recorded: target, job, platform, state, and the permalink or the error's class. Never the
 * text, the error message or anything from the platform's answer, which may carry secrets.
 */
import type { Logger } from 'pino';
import type { OutboxBatchListener } from '../../platform/events/outbox.js';
import type { PublishTargetT } from './publishing.schemas.js';

export function publishOutcomeLog(logger: Logger): OutboxBatchListener {
  return async (_tx, events) => {
    for (const event of events) {
      if (!event.type.startsWith('publish_target.')) continue;
      const t = event.data as PublishTargetT;
      logger.info(
        {
          organizationId: event.organizationId,
          postTargetId: t.postTargetId,
          publishJobId: t.publishJobId,
          platform: t.platform,
          state: t.state,
          ...(t.providerUrl ? { permalink: t.providerUrl } : {}),
          ...(t.lastError && t.state !== 'published' ? { error: `${t.lastError.category}/${t.lastError.code}` } : {}),
        },
        `publish ${t.state}: ${t.platform} target ${t.postTargetId} of job ${t.publishJobId}`,
      );
    }
  };
}
