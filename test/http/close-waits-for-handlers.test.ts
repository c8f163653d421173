/**
 * Closing the app waits for route handlers still running, also when their client left: Fastify's own close
 * ends with the connections, and the process then closes the database (src/main/runtime.ts), which failed
 * a handler between two writes with "driver has already been destroyed".
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestContext, type TestContext } from '../support/harness.js';

/** A GET whose client leaves once the server has the request. */
function requestThenLeave(port: number, path: string, started: Promise<void>): void {
  const req = http.get({ host: '127.0.0.1', port, path });
  req.on('error', () => {});
  void started.then(() => req.destroy());
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('closing the app with handlers in flight', () => {
  const contexts: TestContext[] = [];
  after(async () => {
    for (const ctx of contexts) await ctx.database.close().catch(() => undefined);
  });

  it('waits for a handler whose client left, so that its database work after the close began still runs', async () => {
    const entered = gate();
    const release = gate();
    const events: string[] = [];
    let answer: unknown = null;
    const ctx = await createTestContext({
      checkOpenApi: false,
      routes: (app) =>
        app.get('/test/slow-write', async () => {
          entered.open();
          await release.opened;
          // the database is still open: the app's close has not ended
          answer = (await sql<{ one: number }>`select 1 as one`.execute(ctx.database.db)).rows[0];
          events.push('handler done');
          return { ok: true };
        }),
    });
    contexts.push(ctx);
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (ctx.app.server.address() as AddressInfo).port;
    requestThenLeave(port, '/test/slow-write', entered.opened);
    await entered.opened;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = ctx.app.close().then(() => events.push('app closed'));
    // the connection is gone: Fastify alone would have ended its close by now
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(events, [], 'the close waits while the handler runs');
    release.open();
    await closed;
    assert.deepEqual(events, ['handler done', 'app closed']);
    assert.deepEqual(answer, { one: 1 });
  });

  it('gives up after the shutdown timeout on a handler that never ends', async () => {
    const entered = gate();
    const ctx = await createTestContext({
      checkOpenApi: false,
      env: { SERVICE_SHUTDOWN_TIMEOUT_SECONDS: '1' },
      routes: (app) =>
        app.get('/test/stuck', async () => {
          entered.open();
          await new Promise(() => {});
        }),
    });
    contexts.push(ctx);
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    requestThenLeave((ctx.app.server.address() as AddressInfo).port, '/test/stuck', entered.opened);
    await entered.opened;
    const started = Date.now();
    await ctx.app.close();
    const took = Date.now() - started;
    assert.ok(took >= 900 && took < 5000, `closed after ${took} ms`);
  });

  it('does not wait for a handler that answered and goes on, as a hijacked stream does', async () => {
    const entered = gate();
    const ctx = await createTestContext({
      checkOpenApi: false,
      env: { SERVICE_SHUTDOWN_TIMEOUT_SECONDS: '10' },
      routes: (app) =>
        app.get('/test/stream', async (_request, reply) => {
          reply.hijack();
          reply.raw.end('{"ok":true}');
          entered.open();
          await new Promise(() => {});
        }),
    });
    contexts.push(ctx);
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/test/stream`);
    assert.equal(await res.text(), '{"ok":true}');
    await entered.opened;
    const started = Date.now();
    await ctx.app.close();
    const took = Date.now() - started;
    assert.ok(took < 5000, `closed after ${took} ms`);
  });
});
