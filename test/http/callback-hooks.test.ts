import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endHookWhenSettled, endHookWith } from '../../src/http/callback-hooks.js';

/** A hook's `done` that records each call (a hook must end exactly once). */
function recordingDone() {
  const calls: Array<Error | undefined> = [];
  let ended: () => void = () => {};
  const settled = new Promise<void>((r) => {
    ended = r;
  });
  const done = (err?: Error) => {
    calls.push(err);
    ended();
  };
  return { calls, done: done as never, settled };
}

describe('callback hooks', () => {
  describe('endHookWhenSettled', () => {
    it('ends the hook once, after `then` took the value', async () => {
      const d = recordingDone();
      const seen: number[] = [];
      endHookWhenSettled(Promise.resolve(7), d.done, (v) => seen.push(v));
      await d.settled;
      assert.deepEqual(seen, [7]);
      assert.deepEqual(d.calls, [undefined]);
    });

    it('ends it with the rejection, a non-Error wrapped so it never passes as success', async () => {
      for (const reason of [new Error('refused'), 'refused', undefined, null]) {
        const d = recordingDone();
        endHookWhenSettled(Promise.reject(reason), d.done);
        await d.settled;
        assert.equal(d.calls.length, 1);
        assert.ok(d.calls[0] instanceof Error, `${String(reason)} ends the hook with an Error`);
        if (reason instanceof Error) assert.equal(d.calls[0], reason);
      }
    });

    it('ends it with what `then` throws, instead of leaving the request hanging', async () => {
      const d = recordingDone();
      endHookWhenSettled(Promise.resolve(1), d.done, () => {
        throw new Error('no such policy');
      });
      await d.settled;
      assert.equal(d.calls.length, 1);
      assert.equal(d.calls[0]?.message, 'no such policy');
    });
  });

  describe('endHookWith', () => {
    it('ends the hook with nothing when the check finds nothing, with the issue it answers or throws otherwise', () => {
      const none = recordingDone();
      endHookWith(none.done, () => null);
      assert.deepEqual(none.calls, [undefined]);
      const issue = new Error('bad input');
      const answered = recordingDone();
      endHookWith(answered.done, () => issue);
      assert.deepEqual(answered.calls, [issue]);
      const thrown = recordingDone();
      endHookWith(thrown.done, () => {
        throw 'not an Error';
      });
      assert.equal(thrown.calls.length, 1);
      assert.ok(thrown.calls[0] instanceof Error);
      assert.equal(thrown.calls[0]?.message, 'not an Error');
    });
  });
});
