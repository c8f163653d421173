import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import S3rver from 's3rver';
import { DiskMediaStore } from '../../src/platform/media-store/disk-media-store.js';
import type { MediaStore } from '../../src/platform/media-store/media-store.js';
import { S3MediaStore } from '../../src/platform/media-store/s3-media-store.js';

async function text(body: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString();
}

function contract(
  name: string,
  setup: () => Promise<{
    store: MediaStore;
    scratch: string;
    teardown(): Promise<void>;
  }>,
) {
  describe(`${name} media store`, () => {
    let store: MediaStore;
    let scratch: string;
    let teardown: () => Promise<void>;
    before(async () => {
      ({ store, scratch, teardown } = await setup());
    });
    after(() => teardown());

    test('put a stream, head, get whole and by range, delete', async () => {
      const put = await store.put('org_a/med_1.txt', Readable.from([Buffer.from('hello '), Buffer.from('world')]), {
        contentType: 'text/plain',
      });
      assert.equal(put.size, 11);
      assert.deepEqual(await store.head('org_a/med_1.txt'), { size: 11 });
      const whole = await store.get('org_a/med_1.txt');
      assert.ok(whole);
      assert.equal(whole.size, 11);
      assert.deepEqual(whole.range, { start: 0, end: 10 });
      assert.equal(await text(whole.body), 'hello world');
      const part = await store.get('org_a/med_1.txt', { start: 6, end: 9 });
      assert.ok(part);
      assert.equal(await text(part.body), 'worl');
      await assert.rejects(store.get('org_a/med_1.txt', { start: 5, end: 11 }), RangeError);
      await store.delete('org_a/med_1.txt');
      assert.equal(await store.head('org_a/med_1.txt'), null);
      assert.equal(await store.get('org_a/med_1.txt'), null);
      await store.delete('org_a/med_1.txt');
    });

    test('putFile moves a complete local file under a key', async () => {
      const local = join(scratch, 'upload.bin');
      await writeFile(local, Buffer.alloc(70_000, 7));
      assert.deepEqual(
        await store.putFile('org_a/med_2.bin', local, {
          contentType: 'application/octet-stream',
        }),
        { size: 70_000 },
      );
      assert.equal((await readdir(scratch)).includes('upload.bin'), false, 'the local file was moved away');
      const tail = await store.get('org_a/med_2.bin', {
        start: 69_990,
        end: 69_999,
      });
      assert.ok(tail);
      assert.equal((await text(tail.body)).length, 10);
    });

    test('a failing source leaves nothing under the key', async () => {
      async function* broken() {
        yield Buffer.from('partial');
        throw new Error('client went away');
      }
      await assert.rejects(store.put('org_a/med_3.bin', broken()), /client went away/);
      assert.equal(await store.head('org_a/med_3.bin'), null);
    });

    test('keys that could escape the root are refused', async () => {
      for (const key of ['../etc/passwd', 'a/../../b', '/abs', 'a//b', '.hidden', '']) {
        await assert.rejects(store.head(key), /invalid media store key/, key);
      }
    });

    test('health reports the backend answers', async () => {
      assert.deepEqual(await store.health(), {
        ok: true,
        backend: store.backend,
      });
    });
  });
}

contract('disk', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'media-disk-'));
  const scratch = join(dir, 'media', '.tmp');
  const store = new DiskMediaStore(join(dir, 'media'));
  await store.health();
  return {
    store,
    scratch,
    teardown: () => rm(dir, { recursive: true, force: true }),
  };
});

contract('s3 (s3rver)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'media-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: join(dir, 'bucket'),
    configureBuckets: [{ name: 'media', configs: [] }],
  });
  const { port } = (await server.run()) as AddressInfo;
  const scratch = join(dir, 'scratch');
  await (await import('node:fs/promises')).mkdir(scratch, { recursive: true });
  const store = new S3MediaStore({
    bucket: 'media',
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    prefix: 'svc/',
    tempDir: join(dir, 'tmp'),
  });
  return {
    store,
    scratch,
    teardown: async () => {
      await store.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

test('s3 health reports a bucket that does not answer', async () => {
  const store = new S3MediaStore({
    bucket: 'media',
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    accessKeyId: 'x',
    secretAccessKey: 'y',
    tempDir: tmpdir(),
  });
  const health = await store.health();
  assert.equal(health.ok, false);
  assert.equal(health.backend, 's3');
  assert.doesNotMatch(health.detail ?? '', /y/);
  await store.close();
});

test('s3 publicUrl uses the configured public base', () => {
  const store = new S3MediaStore({
    bucket: 'b',
    region: 'r',
    prefix: 'm/',
    publicBaseUrl: 'https://cdn.example.com/',
    tempDir: tmpdir(),
  });
  assert.equal(store.publicUrl('org/med_1.png'), 'https://cdn.example.com/m/org/med_1.png');
});
