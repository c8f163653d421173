import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { composeRoot } from '../../src/main/composition.js';
import { EventOutbox } from '../../src/platform/events/outbox.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('webhooks: signature vector, outbox sweep, malformed ids', () => {
  let ctx: TestContext;
  let server: Server;
  let url = '';
  const received: { headers: Record<string, string>; body: string }[] = [];

  before(async () => {
    ctx = await createTestContext({
      env: { SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32', SERVICE_WEBHOOK_RETRY_DELAY_PERCENT: '1' },
    });
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  after(async () => {
    await ctx.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('the Standard Webhooks published test vector verifies with the standardwebhooks library', () => {
    // https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
    const wh = new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    const body = '{"test": 2432232314}';
    const sig = wh.sign('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330 * 1000), body);
    assert.equal(sig, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('an event whose fan-out did not happen with its change is delivered once by the sweep', async () => {
    const org = await ctx.createOrganization();
    const created = await ctx.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: org.auth, payload: { url } });
    assert.equal(created.statusCode, 201, created.body);
    const { secret } = created.json();
    // an outbox without listeners: the event row commits, its fan-out does not happen
    const bare = new EventOutbox(() => ctx.deps.clock.now());
    const event = await ctx.database.db
      .transaction()
      .execute((tx) => bare.record(tx, { organizationId: org.organizationId, type: 'media.ready', data: { mediaId: 'med_x' } }));
    const service = ctx.root.areas.webhooks.fanout;
    assert.equal(await service.sweep(60_000), 0, 'recent events are left to their own transaction');
    assert.equal(await service.sweep(0), 1);
    assert.equal(await service.sweep(0), 0, 'a swept event is not fanned out twice');
    await ctx.startWorker();
    const deadline = Date.now() + 15_000;
    while (received.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(received.length, 1);
    const got = received[0]!;
    assert.equal(got.headers['webhook-id'], event.id);
    const payload = new Webhook(secret).verify(got.body, got.headers) as { type: string; id: string };
    assert.equal(payload.type, 'media.ready');
  });

  it('a second composition root on the same outbox (a restarted app) does not fan an event out twice', async () => {
    const org = await ctx.createOrganization();
    const created = await ctx.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: org.auth, payload: { url } });
    assert.equal(created.statusCode, 201, created.body);
    composeRoot({ ...ctx.deps });
    const event = await ctx.database.db
      .transaction()
      .execute((tx) => ctx.deps.events.record(tx, { organizationId: org.organizationId, type: 'media.ready', data: { mediaId: 'med_y' } }));
    const rows = await ctx.database.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', event.id).execute();
    assert.equal(rows.length, 1);
  });

  it('malformed path ids answer 400 or 404, never 500', async () => {
    const org = await ctx.createOrganization();
    for (const [method, path] of [
      ['PATCH', '/v1/webhook-endpoints/nope'],
      ['DELETE', '/v1/webhook-endpoints/nope'],
      ['GET', '/v1/webhook-endpoints/nope/deliveries'],
      ['POST', '/v1/webhook-endpoints/nope/test'],
      ['POST', '/v1/webhook-endpoints/nope/rotate-secret'],
      ['POST', '/v1/webhook-endpoints/nope/recover'],
      ['POST', '/v1/webhook-deliveries/nope/redeliver'],
      ['POST', '/v1/webhook-deliveries/wdl_01ARZ3NDEKTSV4RRFFQ69G5FA%27/redeliver'],
    ] as const) {
      const r = await ctx.app.inject({
        method,
        url: path,
        headers: org.auth,
        ...(method === 'PATCH'
          ? { payload: { enabled: true } }
          : method === 'POST' && path.endsWith('recover')
            ? { payload: { since: new Date().toISOString() } }
            : {}),
      });
      assert.ok(r.statusCode === 400 || r.statusCode === 404, `${method} ${path}: ${r.statusCode} ${r.body}`);
      assert.equal(typeof r.json().error, 'string');
    }
  });
});
