/**
 * Text PostgreSQL cannot store (U+0000, unpaired surrogates) is refused in tool API bodies and public API
 * bodies however it is written in the JSON text (escape case, position, object keys), while look-alikes
 * that are storable (an escaped backslash before `u0000`, a valid escaped surrogate pair) pass. The guard
 * scans the body text once and walks the parsed body only when the text holds such an escape.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';
import { createToolUser, errorCode, type ToolUser, UTM_PATH } from './tool-http.support.js';

describe('unstorable text in JSON bodies', () => {
  let ctx: TestContext;
  let user: ToolUser;

  before(async () => {
    ctx = await createTestContext();
    user = await createToolUser(ctx, 'max');
  });
  after(() => ctx.close());

  const utm = (json: string) =>
    ctx.app.inject({ method: 'POST', url: UTM_PATH, headers: { ...user.auth, 'content-type': 'application/json' }, payload: json });
  const body = (url: string, extra = '') =>
    `{"urls":["https://shop.example/a","${url}"],"source":"news","medium":"email","campaign":"x"${extra}}`;

  it('refuses U+0000 and lone surrogates in values and keys of a tool API body', async () => {
    for (const json of [
      body('https://shop.example/\\u0000'),
      body('https://shop.example/\\uD800'),
      body('https://shop.example/\\udfff'),
      body('https://shop.example/b', ',"content":"a\\u0000"'),
      body('https://shop.example/b', ',"k\\u0000":"v"'),
    ]) {
      const res = await utm(json);
      assert.equal(res.statusCode, 400, json);
      assert.equal(errorCode(res), 'invalid_request');
      assert.match(res.json().error.message, /U\+0000 or unpaired surrogates/);
    }
  });

  it('lets storable look-alikes through', async () => {
    // a literal backslash followed by "u0000", and an escaped surrogate pair (U+1F600)
    for (const json of [body('https://shop.example/\\\\u0000'), body('https://shop.example/\\ud83d\\ude00')]) {
      const res = await utm(json);
      assert.equal(res.statusCode, 200, `${json}: ${res.body}`);
      assert.equal(res.json().links.length, 2);
    }
  });

  it('refuses them in public API bodies too, and keeps the JSON parser rules', async () => {
    const org = await ctx.createOrganization();
    const { brandId } = await ctx.createBrand(org.organizationId, 'Text');
    const put = (payload: string) =>
      ctx.app.inject({
        method: 'PUT',
        url: '/v1/publishing-profiles',
        headers: { ...org.auth, 'content-type': 'application/json' },
        payload,
      });
    const nul = await put(`{"brandId":"${brandId}","name":"a\\u0000b"}`);
    assert.equal(nul.statusCode, 400);
    assert.deepEqual(nul.json().fields[0].path, ['name']);
    const lone = await put(`{"brandId":"${brandId}","name":"a\\uDBFF"}`);
    assert.equal(lone.statusCode, 400);
    const literal = await put(`{"brandId":"${brandId}","name":"a\\\\u0000b"}`);
    assert.notEqual(literal.statusCode, 500);
    assert.notDeepEqual(literal.json().fields?.[0]?.message, 'must not contain U+0000 or unpaired surrogates');
    const poisoned = await put(`{"brandId":"${brandId}","__proto__":{"x":1}}`);
    assert.equal(poisoned.statusCode, 400);
    const empty = await put('');
    assert.equal(empty.statusCode, 400);
  });
});
