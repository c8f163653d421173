import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import pino from 'pino';
import { deferredChildLogger } from '../../../src/platform/logging/deferred-child-logger.js';

/** A Fastify app on a pino logger at `level` writing into `lines`, counting the pino children made. */
function appWith(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, next) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      next();
    },
  });
  const logger = pino({ level }, stream);
  const made = { children: 0 };
  // counted on the instance, called with the logger it is read from (pino's children inherit it)
  const child = logger.child as unknown as (this: unknown, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => pino.Logger;
  logger.child = function (this: unknown, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) {
    made.children++;
    return child.call(this, bindings, options);
  } as unknown as typeof logger.child;
  const app = Fastify({ loggerInstance: logger, childLoggerFactory: deferredChildLogger, genReqId: () => 'req_test' });
  // Fastify's own instance loggers are made at start; the requests' are counted from here
  app.addHook('onReady', async () => {
    made.children = 0;
  });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/warns', async (request) => {
    request.log.info('not written at warn');
    request.log.warn({ detail: 1 }, 'a warning');
    request.log.error('an error');
    return { ok: true };
  });
  app.get('/child', async (request) => {
    request.log.child({ part: 'sub' }).warn('from a child');
    return { level: request.log.level };
  });
  app.get('/raised', async (request) => {
    request.log.level = 'debug';
    request.log.debug('debug after raising the level');
    return { level: request.log.level };
  });
  app.get('/route-level', { logLevel: 'debug' }, async (request) => {
    request.log.debug('debug of a route with its own level');
    return { ok: true };
  });
  return { app, lines, made };
}

describe('deferred request logger', () => {
  it('at warn, a request that logs nothing makes no pino child; one that logs gets its lines with the request id', async () => {
    const { app, lines, made } = appWith('warn');
    await app.ready();
    for (let i = 0; i < 5; i++) assert.equal((await app.inject('/quiet')).statusCode, 200);
    assert.equal(made.children, 0);
    assert.equal(lines.length, 0);

    await app.inject('/warns');
    assert.equal(made.children, 1);
    assert.deepEqual(
      lines.map((l) => [l.msg, l.reqId, l.level]),
      [
        ['a warning', 'req_test', 40],
        ['an error', 'req_test', 50],
      ],
    );
    assert.equal(lines[0]!.detail, 1);
    await app.close();
  });

  it("a child of the request's logger carries the request id and its own bindings; the level reads as the parent's", async () => {
    const { app, lines } = appWith('warn');
    await app.ready();
    const res = await app.inject('/child');
    assert.equal(res.json().level, 'warn');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.reqId, 'req_test');
    assert.equal(lines[0]!.part, 'sub');
    await app.close();
  });

  it("a request that raises its logger's level writes at the new level", async () => {
    const { app, lines } = appWith('warn');
    assert.equal((await app.inject('/raised')).json().level, 'debug');
    // Fastify's own info line at the end of the request follows the raised level too
    assert.deepEqual(
      lines.map((l) => [l.msg, l.reqId]),
      [
        ['debug after raising the level', 'req_test'],
        ['request completed', 'req_test'],
      ],
    );
    await app.close();
  });

  it("a route's own log level gets a pino child at once, at that level", async () => {
    const { app, lines, made } = appWith('warn');
    await app.ready();
    await app.inject('/route-level');
    assert.equal(made.children, 1);
    assert.ok(lines.some((l) => l.msg === 'debug of a route with its own level' && l.reqId === 'req_test'));
    await app.close();
  });

  it('at info, the request lines Fastify writes carry the request id', async () => {
    const { app, lines } = appWith('info');
    await app.inject('/quiet');
    assert.deepEqual(
      lines.map((l) => [l.msg, l.reqId]),
      [
        ['incoming request', 'req_test'],
        ['request completed', 'req_test'],
      ],
    );
    await app.close();
  });
});
