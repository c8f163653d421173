/**
 * Every operation of the OpenAPI document (publishing API and tool API), read at run time, walked with
 * malformed input: each answer is a 4xx in the route's envelope within a time limit, never a 5xx or a
 * hang. A deterministic sweep covers every operation with every class of input; property-based runs
 * (fast-check, fixed seeds) then combine them at random: unstorable text anywhere, and in bodies a value
 * of the wrong JSON type, nesting past the limit, a duplicate key and every non-boolean dryRun.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createTestContext, type TestContext } from '../support/harness.js';
import { createToolUser } from '../tools/tool-http.support.js';
import {
  assertEnvelope,
  fillPath,
  jsonTypesOf,
  MALFORMED_PATH_VALUES,
  MALFORMED_QUERY_VALUES,
  type MalformedRequest,
  nestedValue,
  type Operation,
  readOperations,
  STRANGE_BODIES,
  STRANGE_VALUES,
  send,
  skeletonBody,
  VALUES_BY_JSON_TYPE,
} from './walker.support.js';

/** Values no route may accept anywhere (PostgreSQL cannot store them or they are out of range). */
const UNSTORABLE = new Set<unknown>(['a\u0000b', '\u0000', '\ud800', ['a\u0000'], { '\u0000': 1 }].map((v) => JSON.stringify(v)));
const OUT_OF_RANGE_DATES = new Set<unknown>(['0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z']);
/** URLs carry UTF-8: a lone surrogate cannot travel there, so it becomes U+0000 (also refused). */
const encode = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%00';
  }
};
/** Query parameters a route leaves open on purpose (platforms add their own to OAuth callbacks). */
const OPEN_QUERY = (op: Operation) => op.path.startsWith('/v1/channel-accounts/oauth/callback/');

describe('malformed requests on every documented operation', () => {
  let ctx: TestContext;
  let publicAuth: Record<string, string>;
  let toolAuth: Record<string, string>;
  let doc: Awaited<ReturnType<typeof readOperations>>['doc'];
  let operations: Operation[];

  before(async () => {
    ctx = await createTestContext();
    publicAuth = (await ctx.createOrganization()).auth;
    toolAuth = (await createToolUser(ctx, 'pro')).auth;
    ({ doc, operations } = await readOperations(ctx));
    assert.ok(operations.length > 30, 'the document lists the operations');
  });
  after(() => ctx.close());

  const authFor = (op: Operation) => (op.path.startsWith('/api/v1/tools') ? toolAuth : publicAuth);

  /** Failures are collected so one run reports every operation that misbehaves. */
  let failures: string[] = [];
  /** Statuses answered that the operation's document does not list (generated clients must know them). */
  const undocumented = new Set<string>();
  function documented(req: MalformedRequest, status: number): void {
    const path = req.url.split('?')[0]!;
    const op = operations.find((o) => o.method === req.method && new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
    if (!op || status === 404 || status === 414) return; // unknown paths and over-long segments never reach an operation
    const responses = doc.paths[op.path]?.[op.method.toLowerCase()]?.responses ?? {};
    if (!responses[String(status)] && !responses.default) undocumented.add(`${op.method} ${op.path} ${status}`);
  }
  function check(req: MalformedRequest, res: Awaited<ReturnType<typeof send>>, mustRefuse: boolean): void {
    documented(req, res.statusCode);
    try {
      if (mustRefuse || res.statusCode >= 400) assertEnvelope(req, res);
      else assert.ok(res.statusCode < 500, `${req.method} ${req.url} [${req.label}] -> ${res.statusCode}`);
    } catch (err) {
      failures.push((err as Error).message);
    }
  }
  function assertNoFailures(): void {
    const list = failures;
    failures = [];
    assert.deepEqual(list.slice(0, 40), [], `${list.length} failures`);
  }

  it('malformed path ids answer 4xx', async () => {
    for (const op of operations.filter((o) => o.pathParams.length > 0)) {
      for (const name of op.pathParams) {
        for (const value of MALFORMED_PATH_VALUES) {
          const req = { method: op.method, url: fillPath(op, doc, { [name]: value }), headers: authFor(op), label: `path ${name}` };
          check(req, await send(ctx, req), true);
        }
      }
    }
    assertNoFailures();
  });

  it('unknown, repeated and malformed query parameters answer 4xx', async () => {
    for (const op of operations) {
      const base = fillPath(op, doc);
      const headers = authFor(op);
      if (!OPEN_QUERY(op)) {
        const req = { method: op.method, url: `${base}?unknownParameter=1`, headers, label: 'unknown query parameter' };
        const res = await send(ctx, req);
        check(req, res, true);
        // operations with a body may report the missing body first
        if (op.bodyTypes.length === 0 && res.statusCode === 400 && !/unknownParameter/.test(res.body))
          failures.push(`${op.method} ${op.path}: the answer does not name the unknown parameter: ${res.body}`);
      }
      for (const { name, schema } of op.queryParams) {
        for (const value of MALFORMED_QUERY_VALUES) {
          const req = {
            method: op.method,
            url: `${base}?${encodeURIComponent(name)}=${value}`,
            headers,
            label: `query ${name}=${value.slice(0, 30)}`,
          };
          const refused = value.includes('%00') || (schema.format === 'date-time' && /^(0000|9999|\+)/.test(value));
          check(req, await send(ctx, req), refused);
        }
        const twice = { method: op.method, url: `${base}?${name}=a&${name}=b`, headers, label: `repeated ${name}` };
        check(twice, await send(ctx, twice), false);
      }
    }
    assertNoFailures();
  });

  it('bodies of the wrong type, shape or encoding answer 4xx', async () => {
    for (const op of operations.filter((o) => o.bodyTypes.length > 0)) {
      const url = fillPath(op, doc);
      for (const body of STRANGE_BODIES) {
        const headers: Record<string, string> = { ...authFor(op) };
        if (body.type) headers['content-type'] = body.type;
        const req = { method: op.method, url, headers, payload: body.payload, label: body.label };
        const res = await send(ctx, req);
        // a multipart route may take multipart bodies; every other answer must be a refusal
        const acceptable = body.label === 'proto' || body.label === 'json with charset latin1';
        check(req, res, !acceptable);
      }
    }
    assertNoFailures();
  });

  it('strange values in every body property never answer 5xx; unstorable ones answer 4xx', async () => {
    for (const op of operations.filter((o) => o.bodySchema)) {
      const url = fillPath(op, doc);
      const skeleton = skeletonBody(op.bodySchema, doc);
      const props = (op.bodySchema?.properties ?? {}) as Record<string, { format?: string }>;
      for (const prop of Object.keys(skeleton)) {
        for (const value of STRANGE_VALUES) {
          const refused = UNSTORABLE.has(JSON.stringify(value)) || (props[prop]?.format === 'date-time' && OUT_OF_RANGE_DATES.has(value));
          const payload = JSON.stringify({ ...skeleton, [prop]: value });
          const req = {
            method: op.method,
            url,
            headers: { ...authFor(op), 'content-type': 'application/json' },
            payload,
            label: `body ${prop}=${JSON.stringify(value).slice(0, 30)}`,
          };
          check(req, await send(ctx, req), refused);
        }
      }
    }
    assertNoFailures();
  });

  it('every status answered above is documented on its operation', () => {
    assert.deepEqual([...undocumented].sort(), []);
  });

  it('random combinations (fast-check, fixed seed)', async () => {
    const opArb = fc.constantFrom(...operations);
    const unstorable = fc.oneof(
      fc.string({ maxLength: 8 }).map((s) => `${s}\u0000${s}`),
      fc.constantFrom('\ud800', '\udfff x', 'a\u0000'),
    );
    await fc.assert(
      fc.asyncProperty(opArb, unstorable, fc.nat(), fc.constantFrom('path', 'query', 'body'), async (op, bad, pick, where) => {
        const headers: Record<string, string> = { ...authFor(op) };
        let url = fillPath(op, doc);
        let payload: string | undefined;
        if (where === 'path' && op.pathParams.length > 0) {
          const name = op.pathParams[pick % op.pathParams.length]!;
          url = fillPath(op, doc, { [name]: encode(bad) });
        } else if (where === 'body' && op.bodySchema) {
          const skeleton = skeletonBody(op.bodySchema, doc);
          const keys = Object.keys(skeleton);
          if (keys.length > 0) skeleton[keys[pick % keys.length]!] = bad;
          else skeleton[bad] = 1;
          payload = JSON.stringify(skeleton);
          headers['content-type'] = 'application/json';
        } else {
          const names = op.queryParams.map((q) => q.name);
          const name = names.length > 0 ? names[pick % names.length]! : 'q';
          url = `${url}?${encodeURIComponent(name)}=${encode(bad)}`;
          if (OPEN_QUERY(op) && names.length === 0) return;
        }
        const req = { method: op.method, url, headers, payload, label: `random ${where}` };
        const res = await send(ctx, req);
        check(req, res, true);
        assertNoFailures();
      }),
      { numRuns: 300, seed: 1817 },
    );
  });

  it('random body values of the wrong JSON type, too deep, duplicated or a non-boolean dryRun (fast-check, fixed seed)', async () => {
    const withBody = operations.filter((o) => o.bodySchema && Object.keys(skeletonBody(o.bodySchema, doc)).length > 0);
    const kinds = fc.constantFrom('wrong type', 'too deep', 'duplicate key', 'dryRun');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...withBody), kinds, fc.nat(), fc.nat(), async (op, kind, pickProp, pickValue) => {
        const skeleton = skeletonBody(op.bodySchema, doc);
        const props = (op.bodySchema?.properties ?? {}) as Record<string, Record<string, unknown>>;
        const names = Object.keys(skeleton);
        let prop = names[pickProp % names.length]!;
        let payload: string;
        let expected: RegExp;
        if (kind === 'dryRun') {
          if (!props.dryRun) return;
          prop = 'dryRun';
          const values = [null, 0, 1, '', 'false', 'true', [], [false], {}];
          payload = JSON.stringify({ ...skeleton, dryRun: values[pickValue % values.length] });
          expected = /must be boolean/;
        } else if (kind === 'wrong type') {
          const admitted = jsonTypesOf(props[prop] ?? null, doc);
          const wrong = VALUES_BY_JSON_TYPE.filter((v) => admitted && !admitted.has(v.type));
          if (wrong.length === 0) return;
          payload = JSON.stringify({ ...skeleton, [prop]: wrong[pickValue % wrong.length]!.value });
          expected = /^must /;
        } else if (kind === 'too deep') {
          payload = JSON.stringify({ ...skeleton, [prop]: nestedValue(64 + (pickValue % 200)) });
          expected = /nests deeper than 64 levels/;
        } else {
          payload = JSON.stringify(skeleton).replace(/}$/, `,${JSON.stringify(prop)}:${JSON.stringify(skeleton[prop])}}`);
          expected = /is given more than once/;
        }
        const req = {
          method: op.method,
          url: fillPath(op, doc),
          headers: { ...authFor(op), 'content-type': 'application/json' },
          payload,
          label: `${kind} ${prop}`,
        };
        const res = await send(ctx, req);
        check(req, res, true);
        // a 400 of the publishing API names the property (routes behind another credential answer 401/403 first)
        if (res.statusCode === 400 && !op.path.startsWith('/api/v1/tools')) {
          const fields = (res.json() as { fields?: Array<{ path: string[]; message?: string }> }).fields ?? [];
          if (!fields.some((f) => f.path[0] === prop && expected.test(f.message ?? '')))
            failures.push(`${op.method} ${op.path} [${req.label}]: the answer does not name ${prop}: ${res.body.slice(0, 300)}`);
        }
        assertNoFailures();
      }),
      { numRuns: 300, seed: 2707 },
    );
  });
});
