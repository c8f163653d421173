/**
 * The safety default: an operation with `dryRun` writes only on the boolean `false`. Every operation of
 * the OpenAPI document whose JSON body has a `dryRun` property (found at run time, so a new one is covered
 * too) is sent every non-boolean dryRun and the duplicate-key form `{"dryRun": true, ..., "dryRun": false}`,
 * with an otherwise real body (a published post, a synced comment, an automation source). Each answer is a
 * 400 with the route's code naming `dryRun`, and nothing was written anywhere: every table's rows (the
 * job queue's included) and every simulator's ledger are the same before and after.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { audienceComment, type Published, publishedPost, syncComments } from '../comments/comments-helpers.js';
import { call, type PlatformHarness, startPlatformHarness } from '../publishing/platform-harness.js';
import { INTERNAL_TOKEN } from '../publishing/publishing-harness.js';
import { fillPath, type Operation, readOperations, skeletonBody } from './walker.support.js';

/** Every non-boolean value a client might send (or a lax client library produce) for a boolean. */
const NOT_BOOLEANS: unknown[] = [null, 0, 1, '', 'false', 'true', [], [false], {}];

describe('dryRun: only the boolean false writes', () => {
  let h: PlatformHarness;
  let p: Published;
  let commentId: string;
  let sourceId: string;
  let operations: Operation[];
  let doc: Awaited<ReturnType<typeof readOperations>>['doc'];

  before(async () => {
    h = await startPlatformHarness();
    const worker = await h.ctx.startWorker();
    p = await publishedPost(h, 'facebook_page');
    audienceComment(h, p, 'Where can I buy this?');
    const synced = await syncComments(h, p);
    commentId = synced.list[0]!.socialCommentId as string;
    const source = await call(h, p.org, 'POST', '/v1/automation-sources', { brandId: p.org.brandId, kind: 'external', name: 'agent' });
    assert.equal(source.status, 201, JSON.stringify(source.body));
    sourceId = source.body.automationSourceId;
    ({ doc, operations } = await readOperations(h.ctx));
    // the worker's own writes (heartbeats, queue bookkeeping) would blur the snapshots: stopped before them
    await worker.stop(5000);
  });
  after(() => h.close());

  /** Real values for the properties the operations share; the rest come from the schema. */
  function realBody(op: Operation): Record<string, unknown> {
    const body = skeletonBody(op.bodySchema, doc);
    const real: Record<string, unknown> = {
      organizationId: p.org.organizationId,
      brandId: p.org.brandId,
      channelAccountId: p.channelAccountId,
      providerPostId: p.providerPostId,
      postTargetId: p.postTargetId,
      platform: p.platform,
      automationSourceId: sourceId,
      body: 'Thanks for asking!',
      commentText: 'Where can I buy this?',
      url: 'https://example.com/photo.jpg',
      plan: { brandId: p.org.brandId, text: 'hello', targets: [{ platform: p.platform, channelAccountId: p.channelAccountId }] },
      items: [{ text: 'hello' }],
    };
    for (const name of Object.keys(body)) if (name in real) body[name] = real[name];
    delete body.dryRun;
    return body;
  }

  const pathOf = (op: Operation) =>
    fillPath(op, doc, {
      ...(op.pathParams.includes('socialCommentId') ? { socialCommentId: commentId } : {}),
      ...(op.pathParams.includes('platform') ? { platform: 'meta' } : {}),
    });

  /** Every table's row count and content, and every simulator's ledger. */
  async function snapshot(): Promise<Record<string, string>> {
    const db = h.ctx.database.db;
    const tables = await sql<{ s: string; t: string }>`
      select table_schema as s, table_name as t from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1, 2`.execute(db);
    const out: Record<string, string> = {};
    for (const { s, t } of tables.rows) {
      const ref = sql.raw(`"${s}"."${t}"`);
      // the queue's own bookkeeping (maintenance timestamps) changes on its own: its tables by row count
      const content = s === 'public' ? sql`md5(coalesce(string_agg(x::text, ',' order by x::text), ''))` : sql`''`;
      const r = await sql<{ n: string; h: string }>`select count(*)::text as n, ${content} as h from ${ref} x`.execute(db);
      out[`${s}.${t}`] = `${r.rows[0]!.n} ${r.rows[0]!.h}`;
    }
    for (const [name, sim] of Object.entries({ meta: h.meta, youtube: h.youtube, pinterest: h.pinterest, tiktok: h.tiktok, x: h.x })) {
      out[`simulator.${name}`] = `${sim.ledger.requests.length} ${sim.ledger.posts.length} ${sim.ledger.comments.length}`;
    }
    return out;
  }

  it('every operation with dryRun refuses every other value and the duplicate key, writing nothing', async () => {
    const withDryRun = operations.filter((op) => (op.bodySchema?.properties as Record<string, unknown> | undefined)?.dryRun);
    const names = withDryRun.map((op) => `${op.method} ${op.path}`);
    // the operations the probe found (a new one is picked up from the document)
    for (const expected of [
      'POST /v1/agent/publish',
      'POST /v1/social-comments/{socialCommentId}/reply',
      'POST /v1/social-comments/sync',
      'POST /v1/social-comments/sync-profile',
      'POST /v1/automation-runs',
    ])
      assert.ok(names.includes(expected), `${expected} takes dryRun (found: ${names.join(', ')})`);
    assert.ok(withDryRun.length >= 11, `found ${withDryRun.length}: ${names.join(', ')}`);

    const problems: string[] = [];
    for (const op of withDryRun) {
      const url = pathOf(op);
      const body = realBody(op);
      const payloads = [
        ...NOT_BOOLEANS.map((v) => ({ label: JSON.stringify(v), text: JSON.stringify({ ...body, dryRun: v }), message: null })),
        {
          label: 'duplicate key',
          text: JSON.stringify({ dryRun: true, ...body }).replace(/}$/, ',"dryRun":false}'),
          message: 'is given more than once',
        },
      ];
      const beforeAll = await snapshot();
      for (const { label, text, message } of payloads) {
        const res = await h.ctx.app.inject({
          method: op.method as 'POST',
          url,
          headers: {
            // internal operations (webhook provisioning) take the service's internal token
            ...(op.path.startsWith('/v1/internal/') ? { 'x-service-internal-token': INTERNAL_TOKEN } : p.org.auth),
            'content-type': 'application/json',
            'idempotency-key': `dry-${Math.random()}`,
          },
          payload: text,
        });
        const where = `${op.method} ${op.path} dryRun=${label}`;
        const answer = res.json() as { error?: string; fields?: Array<{ path: string[]; message?: string }> };
        if (res.statusCode !== 400) problems.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        else if (!answer.error?.startsWith('invalid_')) problems.push(`${where}: code ${answer.error}`);
        else if (!answer.fields?.some((f) => f.path.join('.') === 'dryRun' && (message === null || f.message === message)))
          problems.push(`${where}: the answer does not name dryRun: ${res.body.slice(0, 300)}`);
      }
      const afterAll = await snapshot();
      const changed = Object.keys(afterAll).filter((k) => afterAll[k] !== beforeAll[k]);
      if (changed.length > 0) problems.push(`${op.method} ${op.path}: wrote to ${changed.join(', ')}`);
    }
    assert.deepEqual(problems, []);
  });
});
