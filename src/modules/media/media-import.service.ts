/**
 * Remote media import: budgets first, then a guarded fetch (SSRF-safe, capped), then the common
 * ingest path. A dry run checks the URL (parse, scheme, DNS, address policy) and the budgets, fetches
 * nothing and consumes nothing.
 */

import { AppError } from '../../platform/errors.js';
import { GuardedFetchError, type GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { assertOwnOrganization } from '../../platform/organization-guard.js';
import { MAX_IMPORT_BYTES, type MediaImportDryRunT, type MediaImportRequestT, type MediaLibraryItemT } from './media.schemas.js';
import type { MediaService } from './media.service.js';
import { type ImportBudget, ImportBudgetExceeded, type ImportCaller } from './media-import-budget.js';
import type { MediaIngest } from './media-ingest.js';

export type ImportOutcome = { kind: 'dry_run'; body: MediaImportDryRunT } | { kind: 'item'; item: MediaLibraryItemT; created: boolean };

function urlRefused(error: GuardedFetchError): AppError {
  return new AppError('media_import_url_refused', {
    message: `The import URL is refused: ${error.message}.`,
    fields: [{ path: ['url'], source: 'body' }],
    details: { reason: error.code, ...(error.detail.refusal ? { addressClass: error.detail.refusal } : {}) },
  });
}

function toAppError(error: unknown, maxBytes: number): unknown {
  if (error instanceof ImportBudgetExceeded) {
    return new AppError('public_api_rate_limited', {
      message: `${error.message} Retry in ${error.retryAfterSeconds} s.`,
      headers: { 'retry-after': String(error.retryAfterSeconds) },
      details: { budget: error.budget },
    });
  }
  if (!(error instanceof GuardedFetchError)) return error;
  switch (error.code) {
    case 'response_too_large':
      return new AppError('media_file_too_large', { message: `The remote media is larger than maxBytes (${maxBytes}).` });
    case 'timeout':
    case 'connect_failed':
      return new AppError('media_import_fetch_failed', {
        message: `The remote media could not be fetched: ${error.message}.`,
        details: { reason: error.code },
      });
    default:
      return urlRefused(error);
  }
}

function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

export class MediaImportService {
  constructor(
    private readonly media: MediaService,
    private readonly ingest: MediaIngest,
    private readonly client: GuardedHttpClient,
    private readonly budget: ImportBudget,
  ) {}

  async import(caller: ImportCaller, body: MediaImportRequestT): Promise<ImportOutcome> {
    assertOwnOrganization(caller.organizationId, body.organizationId);
    const maxBytes = body.maxBytes ?? MAX_IMPORT_BYTES;
    const brandId = body.brandId ?? null;
    // like every dry run, an import dry run writes nothing and passes the upload gate
    if (!(body.dryRun ?? true)) this.media.assertUploadsEnabled();
    try {
      if (body.dryRun ?? true) return { kind: 'dry_run', body: await this.dryRun(caller, body.url, maxBytes, brandId) };
      return await this.run(caller, body, maxBytes, brandId);
    } catch (error) {
      throw toAppError(error, maxBytes);
    }
  }

  private async dryRun(caller: ImportCaller, url: string, maxBytes: number, brandId: string | null): Promise<MediaImportDryRunT> {
    const checked = await this.client.check(url);
    if (brandId !== null) await this.media.assertBrand(caller.organizationId, brandId);
    const refusal = await this.budget.preview(caller, maxBytes);
    if (refusal) throw refusal;
    return {
      mode: 'dry_run',
      wouldImport: true,
      url: checked.url.href,
      host: checked.url.host,
      maxBytes,
      brandId,
      notes: [
        'The URL and its resolved addresses pass the outbound address policy; each redirect is checked again when fetched.',
        'The media type is decided from the downloaded bytes (JPEG, PNG, GIF, WebP, AVIF, MP4).',
      ],
    };
  }

  private async run(caller: ImportCaller, body: MediaImportRequestT, maxBytes: number, brandId: string | null): Promise<ImportOutcome> {
    // Refuse a bad URL before it costs any budget.
    await this.client.check(body.url);
    if (brandId !== null) await this.media.assertBrand(caller.organizationId, brandId);
    const permit = await this.budget.admit(caller, maxBytes);
    let received = 0;
    try {
      const response = await this.client.get(body.url, { maxBytes });
      if (response.status < 200 || response.status > 299) {
        await response.discard();
        throw new AppError('media_import_fetch_failed', {
          message: `The remote server answered ${response.status}.`,
          details: { reason: 'remote_status', remoteStatus: response.status },
        });
      }
      const counted = (async function* () {
        for await (const chunk of response.body) {
          received += chunk.length;
          yield chunk;
        }
      })();
      const { row, created } = await this.ingestImport(caller.organizationId, counted, maxBytes, brandId, body, response.url);
      return { kind: 'item', item: this.media.toItem(row), created };
    } finally {
      await permit.settle(received);
    }
  }

  private ingestImport(
    organizationId: string,
    source: AsyncIterable<Uint8Array>,
    maxBytes: number,
    brandId: string | null,
    body: MediaImportRequestT,
    finalUrl: string,
  ) {
    return this.ingest.ingest({
      organizationId,
      source,
      maxBytes,
      brandId: () => brandId,
      // query strings may carry access tokens: keep only where the media came from
      extra: () => ({ altText: body.altText ?? null, sourceUrl: withoutQuery(finalUrl) }),
    });
  }
}
