/**
 * Polling a post the platform is still processing: until the platform answers published or failed, or
 * the polling window (the lease while processing) ends, which leaves the outcome unknown.
 */
import type { ChannelContext, ChannelGateway } from './channel-gateway.js';
import { type Outcome, type PublishCall, targetError } from './publish-call.js';
import type { OutcomeRecorder } from './publish-outcomes.js';
import type { TargetRow } from './publishing.repository.js';

export class PublishPoll {
  constructor(
    private readonly channels: ChannelGateway,
    private readonly call: PublishCall,
    private readonly outcomes: OutcomeRecorder,
    private readonly now: () => Date,
  ) {}

  async poll(row: TargetRow): Promise<string> {
    if (row.lease_until && row.lease_until.getTime() < this.now().getTime()) {
      return this.outcomes.record(row, {
        kind: 'final',
        state: 'needs_attention',
        error: targetError(
          'processing_timeout',
          'unknown_outcome',
          'The platform was still processing the post when the polling window ended.',
          null,
          this.now(),
        ),
      });
    }
    let channel: ChannelContext;
    try {
      channel = await this.channels.resolve(row.organization_id, row.channel_account_id);
    } catch (err) {
      return this.outcomes.record(row, this.call.channelProblem(err));
    }
    let outcome: Outcome;
    try {
      outcome = this.call.fromResult(await channel.provider.pollPublish(channel.ctx, row.poll_token ?? ''));
    } catch (err) {
      outcome = this.call.fromError(err, 0, false);
      // polling only reads: a transient failure is polled again rather than counted as an attempt
      if (outcome.kind === 'retry')
        outcome = {
          kind: 'processing',
          pollToken: row.poll_token ?? '',
          pollAfterMs: outcome.delayMs,
          providerPostId: row.provider_post_id,
        };
    }
    return this.outcomes.record(row, outcome);
  }
}
