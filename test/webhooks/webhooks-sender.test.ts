/**
 * One delivery attempt against real loopback receivers: the attempt's deadline covers the whole exchange
 * (a receiver that answers at once but sends its body a little at a time, each piece within the socket
 * timeouts, is still cut off at the deadline), a receiver that does not answer in time is a timeout.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DeliveryAgents, postSigned } from '../../src/modules/webhooks/webhooks.sender.js';
import { GuardedHttpClient } from '../../src/platform/http-client/guarded-client.js';

const TIMEOUT_MS = 400;

describe('webhook sender: one attempt', () => {
  let server: Server;
  let base = '';
  const client = new GuardedHttpClient({ allowAddresses: ['127.0.0.1/32'], environment: 'test', timeoutMs: TIMEOUT_MS });
  const agents = new DeliveryAgents(TIMEOUT_MS);
  const timers: NodeJS.Timeout[] = [];

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      if (req.url === '/ok') return void res.writeHead(204).end();
      // never answers (the connection is closed when the test ends)
      if (req.url === '/silent') return;
      // headers at once, then a byte every 100 ms for 3 s: no gap reaches the socket timeouts
      res.writeHead(200, { 'content-type': 'text/plain' });
      let sent = 0;
      const tick = setInterval(() => {
        if (res.destroyed || ++sent > 30) {
          clearInterval(tick);
          if (!res.destroyed) res.end();
          return;
        }
        res.write('.');
      }, 100);
      timers.push(tick);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const t of timers) clearInterval(t);
    await agents.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('stops reading a slowly sent answer at the deadline: its 2xx status counts, the excerpt is dropped', async () => {
    const started = Date.now();
    const result = await postSigned(client, agents, `${base}/trickle`, '{}', {}, TIMEOUT_MS);
    const took = Date.now() - started;
    assert.equal(result.statusCode, 200);
    assert.equal(result.errorClass, null);
    assert.equal(result.excerpt, null);
    assert.ok(took >= TIMEOUT_MS - 20 && took < TIMEOUT_MS + 1_000, `ended after ${took} ms (the receiver sends for 3 s)`);
  });

  it('records a timeout for a receiver that does not answer within the deadline', async () => {
    const result = await postSigned(client, agents, `${base}/silent`, '{}', {}, 200);
    assert.equal(result.errorClass, 'timeout');
    assert.equal(result.statusCode, null);
  });

  it('delivers a quick answer well before its deadline', async () => {
    const result = await postSigned(client, agents, `${base}/ok`, '{}', {}, 60_000);
    assert.equal(result.errorClass, null);
    assert.equal(result.statusCode, 204);
    assert.ok(result.durationMs < 5_000);
  });
});
