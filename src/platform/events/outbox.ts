/**
 * The event outbox port. Areas call `record` inside the transaction that makes the change, so an
 * event exists exactly when its change committed (never for a rolled-back change, never missing for
 * a committed one). Delivery (webhook fan-out) reads the rows; areas never know who listens.
 */
import { sql } from 'kysely';
import type { AnyExecutor } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import { newId } from '../ids.js';
import type { EventAudience, EventType } from './event-types.js';

export interface DomainEvent {
  organizationId: string;
  type: EventType;
  /** the resource as the API answers it (JSON-serialisable) */
  data: unknown;
  /** events sharing a key (e.g. a publish job id) get consecutive `sequence` numbers */
  sequenceKey?: string;
  /** absent: every endpoint subscribed to the type receives it; otherwise only those of that audience */
  audience?: EventAudience;
}

export interface RecordedEvent {
  id: string;
  organizationId: string;
  type: EventType;
  data: unknown;
  sequence: number | null;
  createdAt: Date;
  audience?: EventAudience | null;
}

/** Called after an event row is written, inside the same transaction (e.g. to queue its fan-out). */
export type OutboxListener = (tx: AnyExecutor, event: RecordedEvent) => Promise<void>;
/** Called once for the events of one `record`/`recordMany` call, inside the same transaction. */
export type OutboxBatchListener = (tx: AnyExecutor, events: RecordedEvent[]) => Promise<void>;

export class EventOutbox {
  private readonly listeners: OutboxListener[] = [];
  private readonly batchListeners = new Map<string | OutboxBatchListener, OutboxBatchListener>();
  private fanOut: OutboxBatchListener | null = null;

  constructor(private readonly now: () => Date) {}

  /** Wired once by the composition root (the webhooks area subscribes here). */
  subscribe(listener: OutboxListener): void {
    this.listeners.push(listener);
  }

  /**
   * Like `subscribe`, with every event of a `recordMany` call at once (set-based fan-out). A listener
   * given a key replaces the one subscribed earlier under that key: a second composition root built on
   * the same outbox (a restarted app in one process) must not fan every event out twice.
   */
  subscribeMany(listener: OutboxBatchListener, key?: string): void {
    this.batchListeners.set(key ?? listener, listener);
  }

  /**
   * The one listener that fans events out inside their transaction (the webhooks area). With it the
   * rows are written already marked fanned out (`fanned_out_at` = `created_at`): the mark commits or
   * rolls back with the fan-out itself, and a burst of events costs one insert instead of an insert
   * and an update of every row. Without it (a process with no fan-out) rows stay unmarked for the sweep.
   * A second subscription replaces the first (a restarted app in one process).
   */
  subscribeFanOut(listener: OutboxBatchListener): void {
    this.fanOut = listener;
  }

  /**
   * Many events in a fixed number of statements (locks, sequence numbers, one insert), as `record` would
   * write them one after the other: events sharing a sequence key get consecutive numbers in array order.
   */
  async recordMany(tx: AnyExecutor, events: DomainEvent[]): Promise<RecordedEvent[]> {
    if (events.length === 0) return [];
    if (events.length === 1) return [await this.record(tx, events[0]!)];
    const createdAt = this.now();
    const keys = [...new Set(events.flatMap((e) => (e.sequenceKey ? [e.sequenceKey] : [])))].sort();
    const next = new Map<string, number>();
    if (keys.length > 0) {
      // the same advisory locks as `record`, taken in key order by one statement
      await sql`select count(pg_advisory_xact_lock(hashtext('events:' || k)))
				from (select k from unnest(${keys}::text[]) as k order by k collate "C") s`.execute(tx);
      // the last number of each key by one index lookup per key (a plain `in` list with grouping is
      // planned as a scan of every event while the table has not been analyzed since a burst began)
      const rows = await sql<{ k: string; max: number | null }>`
				select k, (select max(sequence) from events where sequence_key = k) as max from unnest(${keys}::text[]) as k`.execute(tx);
      for (const r of rows.rows) next.set(r.k, Number(r.max ?? 0));
    }
    const recorded: RecordedEvent[] = events.map((event) => {
      let sequence: number | null = null;
      if (event.sequenceKey) {
        sequence = (next.get(event.sequenceKey) ?? 0) + 1;
        next.set(event.sequenceKey, sequence);
      }
      return recordedEvent(newId('evt'), event, sequence, createdAt);
    });
    await tx
      .insertInto('events')
      .values(
        recorded.map((r, i) => ({
          id: r.id,
          organization_id: r.organizationId,
          type: r.type,
          data: JSON.stringify(r.data ?? null),
          sequence_key: events[i]!.sequenceKey ?? null,
          sequence: r.sequence,
          audience: r.audience ?? null,
          created_at: createdAt,
          fanned_out_at: this.fanOut ? createdAt : null,
        })) as never,
      )
      .modifyEnd(prepared)
      .execute();
    await this.notify(tx, recorded);
    return recorded;
  }

  async record(tx: AnyExecutor, event: DomainEvent): Promise<RecordedEvent> {
    const id = newId('evt');
    const createdAt = this.now();
    let sequence: number | null = null;
    if (event.sequenceKey) {
      // serialise writers of one sequence: the advisory lock lives until the transaction ends
      await sql`select pg_advisory_xact_lock(hashtext(${`events:${event.sequenceKey}`}))`.execute(tx);
      const row = await tx
        .selectFrom('events')
        .select((eb) => eb.fn.max('sequence').as('max'))
        .where('sequence_key', '=', event.sequenceKey)
        .executeTakeFirst();
      sequence = Number(row?.max ?? 0) + 1;
    }
    await tx
      .insertInto('events')
      .values({
        id,
        organization_id: event.organizationId,
        type: event.type,
        data: JSON.stringify(event.data ?? null),
        sequence_key: event.sequenceKey ?? null,
        sequence,
        audience: event.audience ?? null,
        created_at: createdAt,
        fanned_out_at: this.fanOut ? createdAt : null,
      } as never)
      .modifyEnd(prepared)
      .execute();
    const recorded = recordedEvent(id, event, sequence, createdAt);
    await this.notify(tx, [recorded]);
    return recorded;
  }

  private async notify(tx: AnyExecutor, recorded: RecordedEvent[]): Promise<void> {
    for (const r of recorded) for (const listener of this.listeners) await listener(tx, r);
    for (const listener of this.batchListeners.values()) await listener(tx, recorded);
    // the rows were written marked: the fan-out must run in this transaction (its failure rolls all back)
    if (this.fanOut) await this.fanOut(tx, recorded);
  }
}

/** An event as written: its id, sequence number (null without a sequence key) and creation time. */
function recordedEvent(id: string, event: DomainEvent, sequence: number | null, createdAt: Date): RecordedEvent {
  return {
    id,
    organizationId: event.organizationId,
    type: event.type,
    data: event.data,
    sequence,
    createdAt,
    audience: event.audience ?? null,
  };
}
