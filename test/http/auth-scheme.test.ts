import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import type { AuthScheme } from '../../src/http/auth-scheme.js';
import { installPublicAuth, type PublicAuthenticator } from '../../src/http/public-auth.js';
import type { AppDeps } from '../../src/modules/app-deps.js';

// The one auth hook runs an area's own scheme for routes that name it (the tool API's keys); the public
// checks are covered by public-auth.test.ts and the shared security suite.
const noPublicCredentials: PublicAuthenticator = {
  authenticate: async () => {
    throw new Error('not used here');
  },
  forget: () => {},
};

function demoScheme(seen: string[]): AuthScheme {
  return {
    name: 'demo',
    requirements: ['read-things', 'x'],
    async authorize(request, reply, requirement) {
      seen.push(requirement);
      if (request.headers['x-demo-key'] !== 'k') {
        reply.code(401);
        throw Object.assign(new Error('demo key required'), { statusCode: 401 });
      }
    },
  };
}

describe('auth schemes beside the public one', () => {
  it("runs the route's scheme with its requirement before the handler, and only for routes that name it", async () => {
    const seen: string[] = [];
    const app = Fastify();
    installPublicAuth(app, {} as AppDeps, noPublicCredentials, [demoScheme(seen)]);
    let handled = 0;
    app.get('/guarded', { config: { authBy: { scheme: 'demo', requirement: 'read-things' } } }, async () => {
      handled++;
      return { ok: true };
    });
    app.get('/open', async () => ({ open: true }));
    const refused = await app.inject({ url: '/guarded' });
    assert.equal(refused.statusCode, 401);
    assert.equal(handled, 0, 'the handler never ran for a refused credential');
    const ok = await app.inject({ url: '/guarded', headers: { 'x-demo-key': 'k' } });
    assert.equal(ok.statusCode, 200);
    assert.equal(handled, 1);
    assert.equal((await app.inject({ url: '/open' })).statusCode, 200);
    assert.deepEqual(seen, ['read-things', 'read-things']);
    await app.close();
  });

  it('refuses at registration a route naming a scheme nobody installed, a requirement it does not know, or both auth and authBy', async () => {
    const app = Fastify();
    installPublicAuth(app, {} as AppDeps, noPublicCredentials, [demoScheme([])]);
    assert.throws(
      () => app.get('/typo', { config: { authBy: { scheme: 'dmeo', requirement: 'x' } } }, async () => ({})),
      /no authentication scheme "dmeo"/,
    );
    assert.throws(
      () => app.get('/unknown', { config: { authBy: { scheme: 'demo', requirement: 'write-things' } } }, async () => ({})),
      /knows no requirement "write-things"/,
    );
    assert.throws(
      () =>
        app.get('/both', { config: { auth: { scope: 'brands:read' }, authBy: { scheme: 'demo', requirement: 'x' } } }, async () => ({})),
      /one of auth and authBy/,
    );
    await app.close();
  });
});
