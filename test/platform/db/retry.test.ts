import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type DatabaseHandle, openPostgres } from '../../../src/platform/db/database.js';
import { isTransactionConflict, retryOnConflict } from '../../../src/platform/db/retry.js';
import { freshPostgres } from '../../support/harness.js';

const url = process.env.DATABASE_URL;

describe('transactions aborted by a conflict run again', () => {
  it('knows the conflict states, through wrapped causes, and nothing else', () => {
    assert.equal(isTransactionConflict({ code: '40P01' }), true);
    assert.equal(isTransactionConflict({ code: '40001' }), true);
    assert.equal(isTransactionConflict(new Error('wrapped', { cause: { code: '40P01' } })), true);
    assert.equal(isTransactionConflict({ code: '23505' }), false);
    assert.equal(isTransactionConflict(new Error('x')), false);
  });

  it('gives up after the attempts and never retries another error', async () => {
    let runs = 0;
    await assert.rejects(
      retryOnConflict(async () => {
        runs++;
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      }, 3),
      /deadlock/,
    );
    assert.equal(runs, 3);
    runs = 0;
    await assert.rejects(
      retryOnConflict(async () => {
        runs++;
        throw Object.assign(new Error('duplicate key'), { code: '23505' });
      }),
      /duplicate/,
    );
    assert.equal(runs, 1);
  });

  // two transactions locking two rows in opposite orders: PostgreSQL aborts one (40P01)
  describe('a real deadlock on PostgreSQL', { skip: url ? false : 'PostgreSQL only (DATABASE_URL)' }, () => {
    let fresh: Awaited<ReturnType<typeof freshPostgres>>;
    let database: DatabaseHandle;
    before(async () => {
      fresh = await freshPostgres(url!);
      database = openPostgres(fresh.url, 4);
      await sql`create table pair (id int primary key, v int not null)`.execute(database.db);
    });
    after(async () => {
      await database.close();
      await fresh.drop();
    });

    async function race(wrap: <T>(run: () => Promise<T>) => Promise<T>) {
      await sql`truncate pair`.execute(database.db);
      await sql`insert into pair values (1, 0), (2, 0)`.execute(database.db);
      let firstLocks = 0;
      let bothLocked: () => void = () => {};
      const barrier = new Promise<void>((r) => {
        bothLocked = r;
      });
      const runs = [0, 0];
      const writer = (who: 0 | 1, first: number, second: number) =>
        wrap(() =>
          database.db.transaction().execute(async (tx) => {
            runs[who]!++;
            await sql`update pair set v = v + 1 where id = ${first}`.execute(tx);
            if (++firstLocks === 2) bothLocked();
            await barrier;
            await sql`update pair set v = v + 1 where id = ${second}`.execute(tx);
          }),
        );
      const settled = await Promise.allSettled([writer(0, 1, 2), writer(1, 2, 1)]);
      const rows = (await sql<{ id: number; v: number }>`select id, v from pair order by id`.execute(database.db)).rows;
      return { settled, runs, rows };
    }

    it('without a retry one of the two fails with 40P01', async () => {
      const { settled } = await race((run) => run());
      const failed = settled.filter((s) => s.status === 'rejected');
      assert.equal(failed.length, 1);
      assert.equal(isTransactionConflict((failed[0] as PromiseRejectedResult).reason), true);
    });

    it('with retryOnConflict both commit, the aborted one having run again, and no write is lost', async () => {
      const { settled, runs, rows } = await race(retryOnConflict);
      assert.deepEqual(
        settled.map((s) => s.status),
        ['fulfilled', 'fulfilled'],
      );
      assert.deepEqual(runs.sort(), [1, 2]);
      assert.deepEqual(rows, [
        { id: 1, v: 2 },
        { id: 2, v: 2 },
      ]);
    });
  });
});
