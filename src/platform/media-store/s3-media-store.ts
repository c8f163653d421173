/**
 * Media bytes in an S3-compatible bucket (AWS S3, MinIO, R2, ...). The AWS SDK is imported lazily so
 * the default disk mode never loads it.
 *
 * References: https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html,
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html (Range),
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadBucket.html,
 * https://docs.aws.amazon.com/AWSJavaScriptSDK/v3/latest/client/s3/
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  assertValidKey,
  assertValidRange,
  type ByteRange,
  type MediaStore,
  type MediaStoreHealth,
  type PutOptions,
  type StoredObject,
} from './media-store.js';

export interface S3MediaStoreOptions {
  bucket: string;
  region: string;
  /** custom endpoint for S3-compatible servers */
  endpoint?: string;
  forcePathStyle?: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** key prefix inside the bucket, e.g. "media/" */
  prefix?: string;
  /** public base address of the bucket (CDN); when unset objects are served through the API */
  publicBaseUrl?: string;
  /** local directory used to measure streams of unknown length before upload */
  tempDir: string;
}

type S3Module = typeof import('@aws-sdk/client-s3');

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

export class S3MediaStore implements MediaStore {
  readonly backend = 's3' as const;
  private loaded: Promise<{ sdk: S3Module; client: S3Client }> | null = null;

  constructor(private readonly options: S3MediaStoreOptions) {}

  private sdk(): Promise<{ sdk: S3Module; client: S3Client }> {
    this.loaded ??= import('@aws-sdk/client-s3').then((sdk) => {
      const { accessKeyId, secretAccessKey } = this.options;
      const client = new sdk.S3Client({
        region: this.options.region,
        endpoint: this.options.endpoint,
        forcePathStyle: this.options.forcePathStyle ?? Boolean(this.options.endpoint),
        credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
        // Many S3-compatible servers reject the newer default checksum trailers; send them only when required.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { sdk, client };
    });
    return this.loaded;
  }

  private objectKey(key: string): string {
    assertValidKey(key);
    return `${this.options.prefix ?? ''}${key}`;
  }

  async put(key: string, source: AsyncIterable<Uint8Array> | Readable, options?: PutOptions): Promise<{ size: number }> {
    // PutObject needs a length; spool to a local temp file to learn it without holding the bytes in memory.
    await mkdir(this.options.tempDir, { recursive: true });
    const temp = join(this.options.tempDir, `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}.s3part`);
    try {
      await pipeline(source, createWriteStream(temp, { flags: 'wx' }));
      return await this.putFile(key, temp, options);
    } finally {
      await rm(temp, { force: true });
    }
  }

  async putFile(key: string, path: string, options?: PutOptions): Promise<{ size: number }> {
    const Key = this.objectKey(key);
    const { sdk, client } = await this.sdk();
    const { size } = await stat(path);
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.options.bucket,
        Key,
        Body: createReadStream(path),
        ContentLength: size,
        ContentType: options?.contentType,
      }),
    );
    await rm(path, { force: true });
    return { size };
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    const found = await this.head(key);
    if (!found) return null;
    assertValidRange(range, found.size);
    const { sdk, client } = await this.sdk();
    try {
      const answer = await client.send(
        new sdk.GetObjectCommand({
          Bucket: this.options.bucket,
          Key: this.objectKey(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const body = answer.Body instanceof Readable ? answer.Body : Readable.from(answer.Body as AsyncIterable<Uint8Array>);
      return {
        size: found.size,
        body,
        range: range ?? { start: 0, end: Math.max(found.size - 1, 0) },
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async head(key: string): Promise<{ size: number } | null> {
    const { sdk, client } = await this.sdk();
    try {
      const answer = await client.send(
        new sdk.HeadObjectCommand({
          Bucket: this.options.bucket,
          Key: this.objectKey(key),
        }),
      );
      return { size: answer.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const { sdk, client } = await this.sdk();
    await client.send(
      new sdk.DeleteObjectCommand({
        Bucket: this.options.bucket,
        Key: this.objectKey(key),
      }),
    );
  }

  async health(): Promise<MediaStoreHealth> {
    try {
      const { sdk, client } = await this.sdk();
      await client.send(new sdk.HeadBucketCommand({ Bucket: this.options.bucket }), { abortSignal: AbortSignal.timeout(5000) });
      return { ok: true, backend: 's3' };
    } catch (error) {
      const e = error as {
        name?: string;
        $metadata?: { httpStatusCode?: number };
      };
      const status = e.$metadata?.httpStatusCode;
      return {
        ok: false,
        backend: 's3',
        detail: status ? `bucket answered ${status}` : `bucket unreachable (${e.name ?? 'error'})`,
      };
    }
  }

  publicUrl(key: string): string | null {
    const base = this.options.publicBaseUrl;
    return base ? `${base.replace(/\/+$/, '')}/${this.objectKey(key)}` : null;
  }

  /** Releases the SDK's sockets (tests, shutdown). */
  async close(): Promise<void> {
    if (this.loaded) (await this.loaded).client.destroy();
  }
}
