/**
 * The generic contract checker over a vendored description (src/platform/contracts/): it names the
 * operation and the field of each violation, and checks what openapi-backend leaves to it (content type,
 * security scheme).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadContract } from '../../../src/platform/contracts/contracts.js';

const bearer = { authorization: 'Bearer t' };

test('a request of the description passes; its operation is named', async () => {
  const x = await loadContract('x');
  const verdict = x.checkRequest({
    method: 'POST',
    path: '/2/tweets',
    headers: { ...bearer, 'content-type': 'application/json' },
    body: { text: 'hello' },
  });
  assert.deepEqual(verdict.violations, []);
  assert.equal(verdict.operation, 'createPosts (POST /2/tweets)');
});

test('the old command form of POST /2/media/upload is rejected field by field', async () => {
  const x = await loadContract('x');
  const verdict = x.checkRequest({
    method: 'POST',
    path: '/2/media/upload',
    headers: { ...bearer, 'content-type': 'multipart/form-data; boundary=b' },
    body: { command: 'INIT', media_type: 'image/png', total_bytes: '100', media_category: 'tweet_image' },
  });
  const fields = verdict.violations.map((v) => v.field);
  assert.ok(fields.includes('body.command'), fields.join());
  assert.ok(fields.includes('body.total_bytes'));
  assert.ok(verdict.violations.every((v) => v.operation === 'mediaUpload (POST /2/media/upload)'));
});

test('wrong content type, missing credential, unknown enum value and unknown path are violations', async () => {
  const x = await loadContract('x');
  const form = x.checkRequest({ method: 'POST', path: '/2/tweets', headers: { ...bearer, 'content-type': 'text/plain' }, body: 'hi' });
  assert.ok(form.violations.some((v) => v.field === 'header.content-type'));
  const anonymous = x.checkRequest({ method: 'GET', path: '/2/users/me', headers: {} });
  assert.deepEqual(
    anonymous.violations.map((v) => v.field),
    ['header.authorization'],
  );
  const pinterest = await loadContract('pinterest');
  const pin = pinterest.checkRequest({
    method: 'POST',
    path: '/v5/pins',
    headers: { ...bearer, 'content-type': 'application/json' },
    body: { board_id: '1', media_source: { source_type: 'image_link', url: 'https://e.com/a.png' } },
  });
  assert.ok(
    pin.violations.some((v) => v.field.startsWith('body.media_source')),
    JSON.stringify(pin.violations),
  );
  const nowhere = pinterest.checkRequest({ method: 'GET', path: '/v5/nowhere', headers: bearer });
  assert.equal(nowhere.operationId, null);
  assert.equal(nowhere.violations[0]?.field, 'path');
});

test('answers are checked against the response schemas and the described statuses', async () => {
  const x = await loadContract('x');
  assert.deepEqual(x.checkResponse('createPosts', 201, { data: { id: '1', text: 'hello' } }), []);
  const wrong = x.checkResponse('createPosts', 201, { data: { id: 1, text: 'hello' } });
  assert.ok(
    wrong.some((v) => v.field === 'response.data.id'),
    JSON.stringify(wrong),
  );
});
