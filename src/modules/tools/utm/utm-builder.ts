/**
 * The tool API's UTM build request: validates its JSON body and builds the links with the platform's
 * UTM link builder (src/platform/url/utm.ts; the encoding choices are documented there and in
 * docs/tool-api.md).
 */

import { codePointCount } from '../../../platform/code-points.js';
import { buildUtmLinks, UTM_PARAM_NAMES, type UtmBuildRequest, type UtmBuildResult, type UtmParams } from '../../../platform/url/utm.js';
import { isPlainObject, isWellFormedText } from '../tool-text.js';

export {
  buildUtmLinks,
  type UtmBuildResult,
} from '../../../platform/url/utm.js';

export const UTM_VALUE_MAX_CHARS = 250;

export type UtmParseResult = { ok: true; value: UtmBuildRequest } | { ok: false; message: string };

const REQUIRED_FIELDS: ReadonlySet<string> = new Set(['source', 'medium', 'campaign']);

/** Validates the JSON body; values are trimmed and must hold 1-250 characters (Unicode code points). */
export function parseUtmRequest(body: unknown): UtmParseResult {
  if (!isPlainObject(body)) return { ok: false, message: 'Request body must be a JSON object.' };
  const urls = body.urls;
  if (!Array.isArray(urls) || urls.length === 0) {
    return {
      ok: false,
      message: '`urls` must be a non-empty array of URL strings.',
    };
  }
  const params: Partial<UtmParams> = {};
  for (const [field] of UTM_PARAM_NAMES) {
    const raw = body[field];
    if (raw === undefined || raw === null) {
      if (REQUIRED_FIELDS.has(field)) return { ok: false, message: `\`${field}\` is required.` };
      continue;
    }
    if (typeof raw !== 'string') return { ok: false, message: `\`${field}\` must be a string.` };
    const value = raw.trim();
    const length = codePointCount(value);
    if (length < 1 || length > UTM_VALUE_MAX_CHARS) {
      return {
        ok: false,
        message: `\`${field}\` must hold 1-${UTM_VALUE_MAX_CHARS} characters after trimming.`,
      };
    }
    // Lone surrogates cannot be encoded as UTF-8.
    if (!isWellFormedText(value)) return { ok: false, message: `\`${field}\` must be valid Unicode text.` };
    params[field] = value;
  }
  return { ok: true, value: { ...(params as UtmParams), urls } };
}

/** Validates and builds in one call; used by the HTTP route and the benchmark. */
export function buildUtm(body: unknown): { ok: true; value: UtmBuildResult } | { ok: false; message: string } {
  const parsed = parseUtmRequest(body);
  if (!parsed.ok) return parsed;
  return { ok: true, value: buildUtmLinks(parsed.value) };
}
