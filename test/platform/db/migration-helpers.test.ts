/**
 * The migration helpers emit, to the character, what the migrations that use them were written with:
 * migrations are history, so a change here would give a fresh database a different schema. A new shape
 * is a new helper, never an edit of one below.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import {
  brandRow,
  cascadeTo,
  createdAt,
  createdAtNow,
  idKey,
  optionalCascadeTo,
  organizationIndex,
  organizationRef,
  required,
  setNullTo,
  singleUse,
  timestamps,
  timestampsNow,
} from '../../../src/platform/db/migrations/migration-helpers.js';

const executed: string[] = [];
const db = new Kysely<any>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
  log: (event) => {
    executed.push(event.query.sql);
  },
});

describe('migration helpers', () => {
  it('emit the columns the migrations were written with', () => {
    const compiled = db.schema
      .createTable('t')
      .$call(brandRow)
      .$call(idKey)
      .$call(organizationRef)
      .addColumn('a', 'text', required)
      .addColumn('b', 'text', cascadeTo('p'))
      .addColumn('c', 'text', optionalCascadeTo('p'))
      .addColumn('d', 'text', setNullTo('p'))
      .$call(singleUse)
      .$call(createdAt)
      .$call(timestamps)
      .$call(createdAtNow)
      .$call(timestampsNow)
      .compile().sql;
    assert.equal(
      compiled,
      'create table "t" (' +
        [
          '"id" text primary key',
          '"organization_id" text not null references "organizations" ("id") on delete cascade',
          '"brand_id" text not null',
          '"id" text primary key',
          '"organization_id" text not null references "organizations" ("id") on delete cascade',
          '"a" text not null',
          '"b" text not null references "p" ("id") on delete cascade',
          '"c" text references "p" ("id") on delete cascade',
          '"d" text references "p" ("id") on delete set null',
          '"expires_at" timestamptz not null',
          '"consumed_at" timestamptz',
          '"created_at" timestamptz not null',
          '"created_at" timestamptz not null',
          '"updated_at" timestamptz not null',
          '"created_at" timestamptz default now() not null',
          '"created_at" timestamptz default now() not null',
          '"updated_at" timestamptz default now() not null',
        ].join(', ') +
        ')',
    );
  });

  it("emits the organization's (organization_id, id) index", async () => {
    executed.length = 0;
    await organizationIndex(db, 'things', 'things_org_idx');
    assert.deepEqual(executed, ['create index things_org_idx on things (organization_id, id)']);
  });
});
