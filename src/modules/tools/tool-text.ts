/** Small text and shape checks shared by the tool request parsers. */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** False when the string holds a lone surrogate, which cannot be encoded as UTF-8. */
export function isWellFormedText(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}
