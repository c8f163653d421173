import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { checkHook, endHookWhenSettled, endHookWith, prependOnRequest } from '../../src/http/callback-hooks.js';

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

  describe('a check added to a route as it is added', () => {
    /** an app whose routes with `config.guarded` get a check that refuses without x-pass (sync) or x-later (async) */
    async function guardedApp(seen: string[]) {
      const app = Fastify();
      app.addHook('onRoute', (route) => {
        if (!(route.config as { guarded?: boolean } | undefined)?.guarded) return;
        prependOnRequest(
          route,
          checkHook((request) => {
            seen.push(`check ${request.method}`);
            if (request.headers['x-later'] !== undefined)
              return request.headers['x-later'] === 'yes' ? Promise.resolve() : Promise.reject(new Error('refused later'));
            if (request.headers['x-pass'] !== 'yes') throw new Error('refused');
            return undefined;
          }),
        );
      });
      app.setErrorHandler((err, _request, reply) => reply.code(401).send({ error: (err as Error).message }));
      app.get(
        '/guarded',
        {
          config: { guarded: true } as never,
          onRequest: (_request, _reply, done) => {
            seen.push('own');
            done();
          },
        },
        async () => ({ ok: true }),
      );
      app.get('/open', async () => ({ ok: true }));
      await app.ready();
      return app;
    }

    it("runs before the route's own hooks, refuses on a throw or a rejection, and passes at once or once settled", async () => {
      const seen: string[] = [];
      const app = await guardedApp(seen);
      const refused = await app.inject({ method: 'GET', url: '/guarded' });
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().error, 'refused');
      assert.deepEqual(seen, ['check GET'], "the route's own hook never ran");
      seen.length = 0;
      assert.equal((await app.inject({ method: 'GET', url: '/guarded', headers: { 'x-pass': 'yes' } })).statusCode, 200);
      assert.deepEqual(seen, ['check GET', 'own']);
      assert.equal((await app.inject({ method: 'GET', url: '/guarded', headers: { 'x-later': 'yes' } })).statusCode, 200);
      const later = await app.inject({ method: 'GET', url: '/guarded', headers: { 'x-later': 'no' } });
      assert.equal(later.statusCode, 401);
      assert.equal(later.json().error, 'refused later');
      await app.close();
    });

    it('guards the HEAD route Fastify adds for a GET route once, and leaves routes without the option alone', async () => {
      const seen: string[] = [];
      const app = await guardedApp(seen);
      assert.equal((await app.inject({ method: 'HEAD', url: '/guarded' })).statusCode, 401);
      seen.length = 0;
      assert.equal((await app.inject({ method: 'HEAD', url: '/guarded', headers: { 'x-pass': 'yes' } })).statusCode, 200);
      assert.deepEqual(seen, ['check HEAD', 'own'], 'one check and the own hook once');
      seen.length = 0;
      assert.equal((await app.inject({ method: 'GET', url: '/open' })).statusCode, 200);
      assert.deepEqual(seen, []);
      await app.close();
    });
  });
});
