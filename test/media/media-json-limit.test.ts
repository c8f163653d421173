import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';
import { fixture, multipartBody } from './media-helpers.js';

describe('JSON base64 uploads are bounded separately (held in memory whole)', () => {
  let ctx: TestContext;
  let auth: Record<string, string>;
  const file = fixture('sample.png');
  before(async () => {
    ctx = await createTestContext({ overrides: { SERVICE_MEDIA_MAX_JSON_UPLOAD_BYTES: file.length - 1 } });
    auth = (await ctx.createOrganization()).auth;
  });
  after(() => ctx.close());

  it('refuses a JSON upload above SERVICE_MEDIA_MAX_JSON_UPLOAD_BYTES and points to multipart, which accepts the same file', async () => {
    const json = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: { dataBase64: file.toString('base64'), fileName: 'a.png' },
    });
    assert.equal(json.statusCode, 400, json.body);
    assert.equal(json.json().error, 'media_file_too_large');
    assert.match(json.json().message, /multipart/);
    const { body, contentType } = multipartBody([{ name: 'file', filename: 'a.png', contentType: 'image/png', value: file }]);
    const multipart = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: { ...auth, 'content-type': contentType },
      payload: body,
    });
    assert.equal(multipart.statusCode, 201, multipart.body);
  });
});
