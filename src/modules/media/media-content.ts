/**
 * HTTP semantics of media content: single byte ranges (RFC 9110 section 14), strong ETags from the
 * sha256 (the bytes of an item never change) and conditional requests.
 */
export type RangeDecision = { kind: 'full' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

/** Interprets a Range header for an object of `size` bytes. Multiple ranges are answered in full. */
export function decideRange(header: string | undefined, size: number): RangeDecision {
  if (!header) return { kind: 'full' };
  const match = /^bytes=(\d*)-(\d*)$/i.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'full' };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end };
}

export function etagOf(sha256: string): string {
  return `"${sha256}"`;
}

/** true when an If-None-Match header matches the ETag (weak comparison, as RFC 9110 asks for GET). */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** An If-Range that does not match the current ETag turns a range request into a full one. */
export function rangeApplies(ifRange: string | undefined, etag: string): boolean {
  return !ifRange || ifRange.trim() === etag;
}
