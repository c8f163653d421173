/**
 * The platform call's deadline and the caller's cancellation (providerRequest) against a real loopback
 * server that never answers: the deadline ends the call, a cancellation ends it at once, a signal already
 * cancelled sends nothing, and a call that ends leaves the caller's signal without our listener.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ProviderError } from '../../src/providers/provider.js';
import { providerRequest } from '../../src/providers/shared/provider-http.js';

describe('provider HTTP call: deadline and cancellation', () => {
  let server: Server;
  let base = '';
  let received = 0;

  before(async () => {
    server = createServer((req) => {
      received++;
      req.resume();
      // never answers
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** how the call ended: the error and after how long */
  async function ended(call: Promise<unknown>) {
    const started = Date.now();
    try {
      await call;
    } catch (error) {
      return { error, took: Date.now() - started };
    }
    assert.fail('the call answered');
  }

  it('ends at its deadline: a post whose answer is lost is unknown_outcome, a repeatable call transient', async () => {
    const post = await ended(providerRequest('x', { method: 'POST', url: `${base}/post`, json: {}, timeoutMs: 200, idempotent: false }));
    assert.ok(post.error instanceof ProviderError);
    assert.equal(post.error.category, 'unknown_outcome');
    assert.ok(post.took >= 180 && post.took < 2_000, `ended after ${post.took} ms`);
    const get = await ended(providerRequest('x', { method: 'GET', url: `${base}/get`, timeoutMs: 200, idempotent: true }));
    assert.ok(get.error instanceof ProviderError);
    assert.equal(get.error.category, 'transient');
  });

  it("ends at once when the caller cancels, and leaves no listener on the caller's signal", async () => {
    const caller = new AbortController();
    let listeners = 0;
    const add = caller.signal.addEventListener.bind(caller.signal);
    const remove = caller.signal.removeEventListener.bind(caller.signal);
    caller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    }) as typeof add;
    caller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners--;
      remove(...args);
    }) as typeof remove;
    setTimeout(() => caller.abort(new Error('shutting down')), 100);
    const cancelled = await ended(
      providerRequest('x', { method: 'GET', url: `${base}/slow`, timeoutMs: 30_000, idempotent: true, signal: caller.signal }),
    );
    assert.ok(cancelled.error instanceof ProviderError);
    assert.ok(cancelled.took < 2_000, `ended after ${cancelled.took} ms`);
    assert.equal(listeners, 0);
  });

  it('sends nothing when the caller has cancelled already', async () => {
    const before = received;
    const caller = new AbortController();
    caller.abort(new Error('cancelled before'));
    const result = await ended(
      providerRequest('x', { method: 'POST', url: `${base}/never`, json: {}, timeoutMs: 30_000, idempotent: false, signal: caller.signal }),
    );
    assert.ok(result.error instanceof ProviderError);
    assert.ok(result.took < 1_000);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(received, before, 'no request reached the server');
  });
});
