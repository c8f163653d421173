/**
 * The worker's two hot statements, batched: claims started in the same event-loop turn go to the
 * database as one statement, and so do `published` outcomes. Under a burst PostgreSQL's per-statement
 * cost (parse, plan, commit), not the rows, is what limits publishes per second; one statement for a
 * batch keeps every row's conditions (id, version, state) so racing writers behave as with one
 * statement per target. A batch that fails (a deadlock between two batches touching the same jobs)
 * falls back to one statement per target.
 */
import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { EventOutbox } from '../../platform/events/outbox.js';
import { recordTargetOutcomes } from './publish-outcome-events.js';
import { deriveJobStatus } from './publish-states.js';
import type { TargetRow } from './publishing.repository.js';
import type { StoredMedia } from './publishing.tables.js';

const MAX_BATCH = 256;
/** statements of one kind in flight at once; calls arriving meanwhile wait and go together */
const MAX_IN_FLIGHT = 2;

/**
 * Collects calls and runs them as one: those made in the same event-loop turn, and, while
 * MAX_IN_FLIGHT batches are running, every call that arrives until one of them ends. Batches grow with
 * the database's latency instead of one statement per call when outcomes trickle in one by one.
 */
class MicroBatcher<I, O> {
  private pending: Array<{ input: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly many: (inputs: I[]) => Promise<O[]>,
    private readonly one: (input: I) => Promise<O>,
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (this.pending.length >= MAX_BATCH) this.flush();
      else this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.inFlight >= MAX_IN_FLIGHT) return;
    const batch = this.pending.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    this.inFlight++;
    const inputs = batch.map((b) => b.input);
    const run = batch.length === 1 ? this.one(inputs[0]!).then((o) => [o]) : this.many(inputs);
    run
      .then(
        (outs) => {
          for (const [i, b] of batch.entries()) b.resolve(outs[i]!);
        },
        () =>
          // one by one, so one target's failure stays its own
          Promise.all(batch.map((b) => this.one(b.input).then(b.resolve, b.reject))),
      )
      .finally(() => {
        this.inFlight--;
        if (this.pending.length > 0) this.schedule();
      });
  }
}

export interface ClaimInput {
  targetId: string;
  version: number;
  organizationId: string | null;
  leaseUntil: Date;
  now: Date;
}

export type ClaimedRow = TargetRow & {
  job_media: StoredMedia[];
  ch_state: string | null;
  ch_external_account_id: string;
  ch_access_token_ref: string | null;
  ch_additional_settings: Record<string, unknown> | null;
};

export interface PublishedInput {
  targetId: string;
  version: number;
  providerPostId: string;
  url: string | null;
  now: Date;
}

/** jobUpdated: the target is its job's only one and the statement set the job's status too. */
export type PublishedAnswer = { recorded: false } | { recorded: true; jobId: string; jobUpdated: boolean };

export class PublishBatches {
  private readonly claims: MicroBatcher<ClaimInput, ClaimedRow | null>;
  private readonly published: MicroBatcher<PublishedInput, PublishedAnswer>;

  constructor(
    private readonly db: () => Db,
    private readonly events?: EventOutbox,
  ) {
    this.claims = new MicroBatcher(
      (inputs) => this.claimMany(inputs),
      (input) => this.claimMany([input]).then((rows) => rows[0] ?? null),
    );
    this.published = new MicroBatcher(
      (inputs) => this.publishedMany(inputs),
      (input) => this.publishedMany([input]).then((rows) => rows[0]!),
    );
  }

  /** Moves a scheduled/queued target of this version to publishing; answers it with its job's media and channel. */
  claim(input: ClaimInput): Promise<ClaimedRow | null> {
    return this.claims.submit(input);
  }

  /** Records a published outcome of a target still in publishing at this version. */
  recordPublished(input: PublishedInput): Promise<PublishedAnswer> {
    return this.published.submit(input);
  }

  private async claimMany(inputs: ClaimInput[]): Promise<Array<ClaimedRow | null>> {
    // one time for the batch: the earliest caller's clock, the latest lease
    const now = inputs[0]!.now;
    const lease = new Date(Math.max(...inputs.map((i) => i.leaseUntil.getTime())));
    const res = await sql<ClaimedRow>`
			with i as (
				select * from unnest(${inputs.map((x) => x.targetId)}::text[], ${inputs.map((x) => x.version)}::int[],
					${inputs.map((x) => x.organizationId)}::text[]) as i(id, version, org)
			), c as (
				update publish_targets t set state = 'publishing', version = t.version + 1, attempts = t.attempts + 1,
					lease_until = ${lease}, updated_at = ${now}
				from i
				where t.id = i.id and t.version = i.version and t.state in ('scheduled', 'queued')
					and (i.org is null or t.organization_id = i.org)
				returning t.*
			), j as (
				update publish_jobs set status = 'publishing', updated_at = ${now}
				where id in (select job_id from c) and status <> 'publishing'
			)
			select c.*, pj.media as job_media, ca.state as ch_state, ca.external_account_id as ch_external_account_id,
				ca.access_token_ref as ch_access_token_ref, ca.additional_settings as ch_additional_settings
			from c join publish_jobs pj on pj.id = c.job_id
			left join channel_accounts ca on ca.id = c.channel_account_id and ca.organization_id = c.organization_id`.execute(this.db());
    const byId = new Map(res.rows.map((r) => [r.id, r]));
    return inputs.map((x) => byId.get(x.targetId) ?? null);
  }

  private async publishedMany(inputs: PublishedInput[]): Promise<PublishedAnswer[]> {
    const now = inputs[0]!.now;
    // one transaction: the outcome rows and their webhook events commit together
    const res = await this.db()
      .transaction()
      .execute(async (tx) => {
        const res = await sql<{ id: string; job_id: string; job_updated: boolean }>`
			with i as (
				select * from unnest(${inputs.map((x) => x.targetId)}::text[], ${inputs.map((x) => x.version)}::int[],
					${inputs.map((x) => x.providerPostId)}::text[], ${inputs.map((x) => x.url)}::text[]) as i(id, version, post_id, url)
			), t as (
				update publish_targets p set state = 'published', provider_post_id = i.post_id, provider_url = i.url,
					published_at = ${now}, lease_until = null, next_attempt_at = null, poll_token = null, state_reason = null,
					updated_at = ${now}
				from i
				where p.id = i.id and p.version = i.version and p.state = 'publishing'
				returning p.id, p.job_id
			), j as (
				update publish_jobs pj set status = ${deriveJobStatus(['published'])}, updated_at = ${now}
				from t
				where pj.id = t.job_id
					and not exists (select 1 from publish_targets o where o.job_id = pj.id and o.id <> t.id)
				returning pj.id
			)
			select t.id, t.job_id, (t.job_id in (select id from j)) as job_updated from t`.execute(tx);
        // in job order (the event locks are taken in key order by one statement either way)
        const rows = [...res.rows].sort((a, b) => (a.job_id < b.job_id ? -1 : a.job_id > b.job_id ? 1 : a.id < b.id ? -1 : 1));
        if (this.events)
          await recordTargetOutcomes(
            this.events,
            tx,
            rows.map((r) => ({ targetId: r.id, jobUpdated: !!r.job_updated })),
          );
        return res;
      });
    const byId = new Map(res.rows.map((r) => [r.id, r]));
    return inputs.map((x): PublishedAnswer => {
      const r = byId.get(x.targetId);
      return r ? { recorded: true, jobId: r.job_id, jobUpdated: !!r.job_updated } : { recorded: false };
    });
  }
}
