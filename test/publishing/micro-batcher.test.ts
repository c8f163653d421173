import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MicroBatcher } from '../../src/modules/publishing/micro-batcher.js';

const tick = () => new Promise((r) => setImmediate(r));

/** A batcher over a recording writer: each call of `many` is one statement. */
function recorder(hold?: { busy: () => boolean; maxHoldMs: number; maxHeld: number }, lingerMs?: number) {
  const statements: number[][] = [];
  const batcher = new MicroBatcher<number, number>(
    async (inputs) => {
      statements.push(inputs);
      return inputs.map((i) => i * 10);
    },
    async (input) => {
      statements.push([input]);
      return input * 10;
    },
    { hold, ...(lingerMs !== undefined ? { lingerMs } : {}) },
  );
  return { statements, batcher };
}

describe('micro-batcher', () => {
  it('writes the calls of one turn in one statement and answers each its own result', async () => {
    const { statements, batcher } = recorder();
    const answers = await Promise.all([1, 2, 3].map((i) => batcher.submit(i)));
    assert.deepEqual(answers, [10, 20, 30]);
    assert.deepEqual(statements, [[1, 2, 3]]);
  });

  it('with a linger, gathers the calls of several turns within it into one statement', async () => {
    // a linger far longer than the turns between the calls: a loaded host (CI runs two passes on two cores)
    // delays a short timer past a short linger
    const { statements, batcher } = recorder(undefined, 250);
    const started = Date.now();
    const first = batcher.submit(1);
    await tick();
    const second = batcher.submit(2);
    await tick();
    await tick();
    const third = batcher.submit(3);
    assert.deepEqual(await Promise.all([first, second, third]), [10, 20, 30]);
    assert.ok(Date.now() - started >= 245, `written after ${Date.now() - started} ms`);
    assert.deepEqual(statements, [[1, 2, 3]]);
    // without a linger, each turn's calls go on their own
    const plain = recorder();
    const a = plain.batcher.submit(1);
    await tick();
    await tick();
    const b = plain.batcher.submit(2);
    await Promise.all([a, b]);
    assert.deepEqual(plain.statements, [[1], [2]]);
  });

  describe('write-behind while more urgent work waits', () => {
    it('holds the calls while busy and writes them all, 256 a statement, once released', async () => {
      let busy = true;
      const { statements, batcher } = recorder({ busy: () => busy, maxHoldMs: 60_000, maxHeld: 100_000 });
      const answers = Array.from({ length: 600 }, (_, i) => batcher.submit(i));
      for (let i = 0; i < 5; i++) await tick();
      assert.equal(statements.length, 0, 'nothing written while busy');
      busy = false;
      batcher.release();
      assert.equal((await Promise.all(answers)).length, 600);
      assert.deepEqual(
        statements.map((s) => s.length),
        [256, 256, 88],
      );
      // not busy any more: the next call is written at once
      assert.equal(await batcher.submit(7), 70);
    });

    it('keeps writing what it held after a release even while busy again, until nothing is held', async () => {
      const { statements, batcher } = recorder({ busy: () => true, maxHoldMs: 60_000, maxHeld: 100_000 });
      const answers = Array.from({ length: 300 }, (_, i) => batcher.submit(i));
      await tick();
      batcher.release();
      await Promise.all(answers);
      assert.equal(
        statements.reduce((n, s) => n + s.length, 0),
        300,
      );
    });

    it('writes on its own once the first held call waited maxHoldMs (a sustained overload still writes)', async () => {
      const { statements, batcher } = recorder({ busy: () => true, maxHoldMs: 50, maxHeld: 100_000 });
      const started = Date.now();
      const answer = await batcher.submit(4);
      assert.equal(answer, 40);
      assert.ok(Date.now() - started >= 45, `written after ${Date.now() - started} ms`);
      assert.deepEqual(statements, [[4]]);
    });

    it('writes once maxHeld calls are held, busy or not', async () => {
      const { statements, batcher } = recorder({ busy: () => true, maxHoldMs: 60_000, maxHeld: 10 });
      const answers = Array.from({ length: 10 }, (_, i) => batcher.submit(i));
      await Promise.all(answers);
      assert.equal(
        statements.reduce((n, s) => n + s.length, 0),
        10,
      );
    });
  });
});
