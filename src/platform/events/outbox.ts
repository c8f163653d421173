/**
 * The event outbox port. Areas call `record` inside the transaction that makes the change, so an
 * event exists exactly when its change committed (never for a rolled-back change, never missing for
 * a committed one). Delivery (webhook fan-out) reads the rows; areas never know who listens.
 */
import { sql } from 'kysely';
import type { AnyExecutor } from '../db/database.js';
import { newId } from '../ids.js';
import type { EventType } from './event-types.js';

export interface DomainEvent {
  organizationId: string;
  type: EventType;
  /** the resource as the API answers it (JSON-serialisable) */
  data: unknown;
  /** events sharing a key (e.g. a publish job id) get consecutive `sequence` numbers */
  sequenceKey?: string;
}

export interface RecordedEvent {
  id: string;
  organizationId: string;
  type: EventType;
  data: unknown;
  sequence: number | null;
  createdAt: Date;
}

/** Called after an event row is written, inside the same transaction (e.g. to queue its fan-out). */
export type OutboxListener = (tx: AnyExecutor, event: RecordedEvent) => Promise<void>;

export class EventOutbox {
  private readonly listeners: OutboxListener[] = [];

  constructor(private readonly now: () => Date) {}

  /** Wired once by the composition root (the webhooks area subscribes here). */
  subscribe(listener: OutboxListener): void {
    this.listeners.push(listener);
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
        created_at: createdAt,
        fanned_out_at: null,
      } as never)
      .execute();
    const recorded: RecordedEvent = { id, organizationId: event.organizationId, type: event.type, data: event.data, sequence, createdAt };
    for (const listener of this.listeners) await listener(tx, recorded);
    return recorded;
  }
}
