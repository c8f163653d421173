import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { callbackFetch } from '../../src/sandbox/simulators/callback-fetch.js';

describe('simulator callbacks', () => {
  const server = createServer((_req, res) => res.end('ok'));
  let connections = 0;
  let url = '';
  before(async () => {
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('each call has a connection of its own: none can be reused just as the service closes it', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await callbackFetch(url);
      assert.equal(await res.text(), 'ok');
    }
    assert.equal(connections, 3);
  });
});
