/**
 * Named prepared statements (src/platform/db/prepared.ts): a statement that ends with the marker runs by a
 * name of its text, parsed once per connection; any other statement runs unnamed; the setting turns names
 * off. The PostgreSQL part reads the connection's own list of prepared statements.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { serveEmbeddedSocket } from '../../../src/main/runtime.js';
import { type DatabaseHandle, embeddedSocketUrl, isUnixSocketUrl, openPglite, openPostgres } from '../../../src/platform/db/database.js';
import { PREPARED_MARK, prepared, preparedName } from '../../../src/platform/db/prepared.js';
import { REAL_DATABASE_URL } from '../../support/harness.js';

describe('prepared statements', () => {
  it('names a marked text, the same name each time and another for another text; leaves other texts unnamed', () => {
    const text = `select $1::int as a${PREPARED_MARK}`;
    const name = preparedName(text);
    assert.match(name ?? '', /^service_api_\d+$/);
    assert.equal(preparedName(text), name);
    assert.notEqual(preparedName(`select $1::int as b${PREPARED_MARK}`), name);
    assert.equal(preparedName('select $1::int as a'), null);
    assert.equal(preparedName(`select $1::int /* prepared */ as a`), null, 'the marker counts at the end only');
  });

  describe('on PostgreSQL', { skip: REAL_DATABASE_URL ? false : 'PostgreSQL only (DATABASE_URL)' }, () => {
    // one connection each, so the statements' list read afterwards is the connection's that ran them
    let named: DatabaseHandle;
    let unnamed: DatabaseHandle;
    before(() => {
      named = openPostgres(REAL_DATABASE_URL!, 1);
      unnamed = openPostgres(REAL_DATABASE_URL!, 1, { preparedStatements: false });
    });
    after(async () => {
      await named.close();
      await unnamed.close();
    });

    const preparedOn = async (db: DatabaseHandle) =>
      (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(db.db))
        .rows;

    it('runs a marked statement by name, parsed once on the connection, with the same answers', async () => {
      const answers: number[] = [];
      for (let i = 0; i < 7; i++) {
        const r = await sql<{ x: number }>`select ${i}::int * 2 as x, 'prepared test' as label${prepared}`.execute(named.db);
        answers.push(r.rows[0]!.x);
      }
      await sql`select ${1}::int as unmarked_test`.execute(named.db);
      assert.deepEqual(answers, [0, 2, 4, 6, 8, 10, 12]);
      const list = await preparedOn(named);
      const ours = list.filter((s) => s.statement.includes("'prepared test'"));
      assert.equal(ours.length, 1, 'one prepared statement for the seven executions');
      assert.equal(ours[0]!.name, preparedName(`select $1::int * 2 as x, 'prepared test' as label${PREPARED_MARK}`));
      assert.ok(!list.some((s) => s.statement.includes('unmarked_test')), 'an unmarked statement is not prepared');
    });

    it('a named statement whose execution failed (a duplicate key) runs again by its name', async () => {
      await sql`create temporary table prepared_probe (id int primary key)`.execute(named.db);
      const insert = (id: number) => sql`insert into prepared_probe (id) values (${id})${prepared}`.execute(named.db);
      await insert(1);
      await assert.rejects(insert(1), /duplicate key/);
      await insert(2);
      const rows = await sql<{ id: number }>`select id from prepared_probe order by id`.execute(named.db);
      assert.deepEqual(
        rows.rows.map((r) => r.id),
        [1, 2],
      );
    });

    it('with DATABASE_PREPARED_STATEMENTS=false every statement runs unnamed', async () => {
      const r = await sql<{ x: number }>`select ${21}::int * 2 as x, 'unnamed test' as label${prepared}`.execute(unnamed.db);
      assert.equal(r.rows[0]!.x, 42);
      assert.deepEqual(await preparedOn(unnamed), []);
    });
  });
});

describe('connections through a Unix socket', () => {
  it('run marked statements unnamed: two pools on the embedded socket (one PGlite session) run the same one', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prepared-socket-'));
    const embedded = await openPglite(dir);
    const socketPath = path.join(dir, '.s.PGSQL.5432');
    const server = await serveEmbeddedSocket(embedded.pglite!, embedded.lock!, socketPath, pino({ level: 'silent' }));
    try {
      // a name prepared by the first pool would exist for the second ("prepared statement already exists")
      for (const round of [1, 2]) {
        const handle = openPostgres(embeddedSocketUrl(socketPath), 1);
        const r = await sql<{ x: number }>`select ${round}::int * 2 as x, 'socket test' as label${prepared}`.execute(handle.db);
        assert.equal(r.rows[0]!.x, round * 2);
        await handle.close();
      }
    } finally {
      await server.stop();
      await embedded.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are told apart from TCP ones (their statements run unnamed: the embedded socket shares one session)', () => {
    assert.equal(isUnixSocketUrl('postgresql://postgres@localhost:5432/postgres?host=%2Ftmp%2Fdata'), true);
    assert.equal(isUnixSocketUrl('postgresql://postgres@%2Fvar%2Frun%2Fpostgresql/test'), true);
    assert.equal(isUnixSocketUrl('socket:/var/run/postgresql?db=test'), true);
    assert.equal(isUnixSocketUrl('postgres://postgres@127.0.0.1:5432/test'), false);
    assert.equal(isUnixSocketUrl('postgres://user:p%2Fss@db.internal/test?sslmode=require'), false);
  });
});
