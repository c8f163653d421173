/**
 * The shape rules of every JSON body, checked on its text before it is parsed:
 * - a key given twice in one object is refused (JSON.parse keeps the last one silently, so
 *   `{"dryRun": true, "dryRun": false}` would read as a write);
 * - nesting is at most JSON_MAX_DEPTH levels (deep data overflows the stack of whatever walks it later:
 *   validation, the error handler, JSON.stringify on the way to the database);
 * - a body holds at most JSON_MAX_VALUES values (object members and array elements together) and an
 *   object at most JSON_MAX_KEYS keys.
 *
 * Hand-written on purpose: JSON.parse reports none of these (duplicates are already gone from its result,
 * and a reviver sees only the last one), and a parser library that does would build the value itself,
 * far slower than the native parse. This is one pass over the text that jumps from quote to quote with
 * indexOf (string contents, the bulk of most bodies, are never looked at byte by byte) and keeps only a
 * stack of open containers; the text is then parsed natively. It does not validate JSON syntax: invalid
 * text passes here and is refused by the parser after it.
 */
import { AppError, type ErrorCode } from '../platform/errors.js';

/** Deepest nesting of objects and arrays accepted (the body itself is level 1). */
export const JSON_MAX_DEPTH = 64;
/** Most values (object members plus array elements, at every level) in one body. */
const JSON_MAX_VALUES = 250_000;
/** Most keys in one object. */
const JSON_MAX_KEYS = 10_000;

export interface JsonShapeIssue {
  kind: 'duplicate_key' | 'too_deep' | 'too_many_values' | 'too_many_keys';
  /** where: the keys and array indexes down to the offending key or container */
  path: string[];
  message: string;
}

export interface JsonShapeLimits {
  maxDepth: number;
  maxValues: number;
  maxKeys: number;
}

const DEFAULT_LIMITS: JsonShapeLimits = { maxDepth: JSON_MAX_DEPTH, maxValues: JSON_MAX_VALUES, maxKeys: JSON_MAX_KEYS };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** Index of the quote closing the string opened at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j < 0) return -1;
    let backslashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
    j++;
  }
}

/**
 * The path to a container, from its parents' current keys and indexes. A module function: a closure made on
 * every call would also be named again on each one under the bundle's keepNames.
 */
function pathTo(at: Array<string | number>, levels: number): string[] {
  return at.slice(0, levels).map(String);
}

/** The first rule the JSON text breaks, or null (also for text that is not JSON: the parser says so). */
export function checkJsonShape(text: string, limits: JsonShapeLimits = DEFAULT_LIMITS): JsonShapeIssue | null {
  // per open container (index = depth - 1): object or array, its keys so far, the current key or index
  const isObject: boolean[] = [];
  const keys: Array<Set<string> | null> = [];
  const at: Array<string | number> = [];
  let depth = 0;
  let values = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return null;
      if (expectKey) {
        let key = text.slice(i + 1, end);
        if (key.includes('\\')) {
          try {
            key = JSON.parse(text.slice(i, end + 1)) as string;
          } catch {
            return null;
          }
        }
        const level = depth - 1;
        let seen = keys[level];
        if (!seen) {
          seen = new Set();
          keys[level] = seen;
        }
        if (seen.has(key)) return { kind: 'duplicate_key', path: [...pathTo(at, level), key], message: 'is given more than once' };
        seen.add(key);
        if (seen.size > limits.maxKeys)
          return { kind: 'too_many_keys', path: pathTo(at, level), message: `holds more than ${limits.maxKeys} keys` };
        at[level] = key;
        expectKey = false;
      }
      i = end;
      continue;
    }
    switch (c) {
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (++values > limits.maxValues)
          return { kind: 'too_many_values', path: [], message: `holds more than ${limits.maxValues} values` };
        if (depth >= limits.maxDepth)
          return { kind: 'too_deep', path: pathTo(at, depth), message: `nests deeper than ${limits.maxDepth} levels` };
        isObject[depth] = c === OPEN_OBJECT;
        keys[depth] = null;
        at[depth] = c === OPEN_OBJECT ? '' : 0;
        depth++;
        expectKey = c === OPEN_OBJECT;
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        if (depth > 0) depth--;
        expectKey = false;
        break;
      case COMMA:
        if (++values > limits.maxValues)
          return { kind: 'too_many_values', path: [], message: `holds more than ${limits.maxValues} values` };
        if (depth === 0) break;
        if (isObject[depth - 1]) expectKey = true;
        else at[depth - 1] = (at[depth - 1] as number) + 1;
        break;
    }
  }
  return null;
}

/** The answer to a body breaking a shape rule: the route's validation code, a field naming where. */
export function jsonShapeError(code: ErrorCode, issue: JsonShapeIssue): AppError {
  const where = issue.path.length > 0 ? `body ${issue.path.join('.')}` : 'body';
  return new AppError(code, {
    message: `Invalid ${where}: ${issue.message}.`,
    fields: [{ path: issue.path, source: 'body', message: issue.message }],
  });
}
