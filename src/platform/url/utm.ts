/**
 * Pure UTM link builder: tags landing page URLs with UTM parameters (the tool API's UTM builder and the
 * batches' product link comments use it).
 *
 * Encoding choices (see docs/tool-api.md):
 * - UTM values are percent-encoded with encodeURIComponent, so a space becomes `%20` (never `+`, which only
 *   means space in form encoding and is kept literally by many servers) and `+ & = # %` are escaped.
 * - Query parameters we do not set keep their exact text and order; only parameters whose decoded name is a
 *   UTM name we set are removed, then our parameters are appended in a fixed order.
 * - The fragment is copied verbatim after the query, so hash-router URLs (`/#/x?y=1`) keep their route.
 */

const UTM_URL_MAX_CHARS = 8192;

/** Why a URL was not built; every value is listed in docs/tool-api.md. */
type UtmInvalidReason = 'not_a_string' | 'empty' | 'too_long' | 'relative_url' | 'unsupported_scheme' | 'missing_host' | 'malformed';

export interface UtmParams {
  source: string;
  medium: string;
  campaign: string;
  content?: string;
  term?: string;
  id?: string;
  sourcePlatform?: string;
}

export interface UtmBuildRequest extends UtmParams {
  urls: unknown[];
}

interface UtmLink {
  index: number;
  url: string;
  link: string;
}

interface UtmInvalid {
  index: number;
  url: unknown;
  reason: UtmInvalidReason;
}

export interface UtmBuildResult {
  links: UtmLink[];
  invalid: UtmInvalid[];
}

/** Request field -> query parameter, in the order parameters are appended. */
export const UTM_PARAM_NAMES: ReadonlyArray<readonly [keyof UtmParams, string]> = [
  ['source', 'utm_source'],
  ['medium', 'utm_medium'],
  ['campaign', 'utm_campaign'],
  ['id', 'utm_id'],
  ['term', 'utm_term'],
  ['content', 'utm_content'],
  ['sourcePlatform', 'utm_source_platform'],
];

/** True when the text holds ASCII whitespace or control characters (not valid in a URL as typed). */
function hasSpaceOrControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** The query text appended to every link, computed once per request. */
function utmQuerySuffix(params: UtmParams): string {
  let suffix = '';
  for (const [field, name] of UTM_PARAM_NAMES) {
    const value = params[field];
    if (value === undefined) continue;
    suffix += `${suffix ? '&' : ''}${name}=${encodeURIComponent(value)}`;
  }
  return suffix;
}

function namesToReplace(params: UtmParams): Set<string> {
  const names = new Set<string>();
  for (const [field, name] of UTM_PARAM_NAMES) if (params[field] !== undefined) names.add(name);
  return names;
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

function decodeQueryName(name: string): string {
  if (!name.includes('%') && !name.includes('+')) return name;
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * Keeps every query segment whose decoded name is not replaced, in order and as typed. A typed segment with
 * whitespace or control characters is not a valid URL component, so its serialized form is used instead;
 * the parser never adds or removes `&`, so typed and serialized segments line up one to one.
 */
function filterQuery(typed: string, serialized: string, replaced: ReadonlySet<string>): string {
  if (serialized === '') return '';
  // Common case: typed as serialized, no parameter name that could be a UTM name, no empty segments.
  if (
    typed === serialized &&
    !serialized.includes('utm') &&
    !serialized.includes('%') &&
    !serialized.includes('&&') &&
    serialized.charCodeAt(0) !== 38 &&
    serialized.charCodeAt(serialized.length - 1) !== 38
  ) {
    return serialized;
  }
  const typedSegments = typed.split('&');
  const serializedSegments = serialized.split('&');
  const aligned = typedSegments.length === serializedSegments.length;
  let kept = '';
  for (let i = 0; i < serializedSegments.length; i++) {
    const encoded = serializedSegments[i] as string;
    if (encoded === '') continue;
    const eq = encoded.indexOf('=');
    const name = eq === -1 ? encoded : encoded.slice(0, eq);
    if (replaced.has(decodeQueryName(name))) continue;
    const raw = aligned ? (typedSegments[i] as string) : encoded;
    const segment = hasSpaceOrControl(raw) ? encoded : raw;
    kept += kept ? `&${segment}` : segment;
  }
  return kept;
}

/** Splits typed text into its query and fragment; the first `?` before the first `#` starts the query. */
function typedParts(text: string): { query: string; fragment: string } {
  const hashAt = text.indexOf('#');
  const beforeHash = hashAt === -1 ? text : text.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  return {
    query: queryAt === -1 ? '' : beforeHash.slice(queryAt + 1),
    fragment: hashAt === -1 ? '' : text.slice(hashAt),
  };
}

type LinkOutcome = { link: string } | { reason: UtmInvalidReason };

function tagUrl(input: unknown, suffix: string, replaced: ReadonlySet<string>): LinkOutcome {
  if (typeof input !== 'string') return { reason: 'not_a_string' };
  const text = input.trim();
  if (text === '') return { reason: 'empty' };
  if (text.length > UTM_URL_MAX_CHARS) return { reason: 'too_long' };
  const scheme = SCHEME.exec(text);
  if (!scheme) return { reason: 'relative_url' };
  const protocol = (scheme[1] as string).toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') return { reason: 'unsupported_scheme' };
  // The WHATWG parser would accept `http:example.com`; we require an explicit authority.
  const afterScheme = text.slice(protocol.length + 1, protocol.length + 3);
  if (afterScheme !== '//' && afterScheme !== '\\\\') return { reason: 'missing_host' };
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return { reason: 'malformed' };
  }
  if (parsed.hostname === '') return { reason: 'missing_host' };
  // The serialized href has IDN hosts in punycode, IPv6 in brackets, and `?`/`#` only as delimiters.
  const href = parsed.href;
  const hashAt = href.indexOf('#');
  const beforeHash = hashAt === -1 ? href : href.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const typed = typedParts(text);
  const kept = queryAt === -1 ? '' : filterQuery(typed.query, beforeHash.slice(queryAt + 1), replaced);
  const fragment = hashAt === -1 ? '' : hasSpaceOrControl(typed.fragment) ? href.slice(hashAt) : typed.fragment;
  return { link: `${base}?${kept ? `${kept}&` : ''}${suffix}${fragment}` };
}

/** Tags every URL of an already validated request; result arrays follow the input order. */
export function buildUtmLinks(request: UtmBuildRequest): UtmBuildResult {
  const suffix = utmQuerySuffix(request);
  const replaced = namesToReplace(request);
  const links: UtmLink[] = [];
  const invalid: UtmInvalid[] = [];
  const urls = request.urls;
  for (let index = 0; index < urls.length; index++) {
    const url = urls[index];
    const outcome = tagUrl(url, suffix, replaced);
    if ('link' in outcome) links.push({ index, url: url as string, link: outcome.link });
    else invalid.push({ index, url, reason: outcome.reason });
  }
  return { links, invalid };
}
