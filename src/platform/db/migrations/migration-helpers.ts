/**
 * The column and index shapes the migrations repeat: the text id key, the organization's and a brand's
 * row, foreign keys, single-use secrets, timestamps and the organization's (organization_id, id) index.
 * Table helpers go in a chain with `.$call(helper)`; column helpers are `addColumn` callbacks. Each
 * table's createTable call stays written out in its migration: the table-ownership check reads the
 * table names there.
 *
 * Migrations are history: once a migration uses a helper, what the helper emits must never change (not a
 * name, a type, a default or the order of its columns), or a fresh database would differ from one
 * migrated before the change. A new shape gets a new helper.
 */
import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, sql } from 'kysely';

type Table = CreateTableBuilder<string, any>;
type Column = (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

/** `not null` */
export const required: Column = (c) => c.notNull();

/** `not null references <table>(id) on delete cascade`: a row that lives and dies with its parent. */
export const cascadeTo =
  (table: string): Column =>
  (c) =>
    c.notNull().references(`${table}.id`).onDelete('cascade');

/** `references <table>(id) on delete cascade`, nullable. */
export const optionalCascadeTo =
  (table: string): Column =>
  (c) =>
    c.references(`${table}.id`).onDelete('cascade');

/** `references <table>(id) on delete set null`, nullable. */
export const setNullTo =
  (table: string): Column =>
  (c) =>
    c.references(`${table}.id`).onDelete('set null');

/** `id text primary key` */
export const idKey = (t: Table) => t.addColumn('id', 'text', (c) => c.primaryKey());

/** `organization_id text not null`, cascading from organizations. */
export const organizationRef = (t: Table) => t.addColumn('organization_id', 'text', cascadeTo('organizations'));

/** An organization's row: `id` then `organization_id`. */
export const organizationRow = (t: Table) => t.$call(idKey).$call(organizationRef);

/** A brand's row: `id`, `organization_id`, then `brand_id text not null` (not a foreign key). */
export const brandRow = (t: Table) => t.$call(organizationRow).addColumn('brand_id', 'text', required);

/** A single-use secret's `expires_at timestamptz not null` and `consumed_at timestamptz`. */
export const singleUse = (t: Table) => t.addColumn('expires_at', 'timestamptz', required).addColumn('consumed_at', 'timestamptz');

/** `created_at timestamptz not null` (the service writes it). */
export const createdAt = (t: Table) => t.addColumn('created_at', 'timestamptz', required);

/** `created_at` and `updated_at timestamptz not null` (the service writes both). */
export const timestamps = (t: Table) => t.$call(createdAt).addColumn('updated_at', 'timestamptz', required);

const now: Column = (c) => c.notNull().defaultTo(sql`now()`);

/** `created_at timestamptz not null default now()` */
export const createdAtNow = (t: Table) => t.addColumn('created_at', 'timestamptz', now);

/** `created_at` and `updated_at timestamptz not null default now()` */
export const timestampsNow = (t: Table) => t.$call(createdAtNow).addColumn('updated_at', 'timestamptz', now);

/** `create index <name> on <table> (organization_id, id)`: the organization's keyset walk. */
export async function organizationIndex(db: Kysely<any>, table: string, name: string): Promise<void> {
  await sql.raw(`create index ${name} on ${table} (organization_id, id)`).execute(db);
}
