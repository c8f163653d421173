/**
 * Text length as each platform counts it: X's weighted count (URLs count 23, CJK and emoji 2) through
 * the official twitter-text library; UTF-8 bytes (YouTube descriptions, Threads); otherwise Unicode
 * code points.
 */
import { createRequire } from 'node:module';
import type TwitterText from 'twitter-text';
import { codePointCount } from '../../platform/code-points.js';
import type { ProviderValidationRules } from '../../providers/provider.js';

const requireLazily = createRequire(import.meta.url);
let loaded: typeof TwitterText | null = null;
/** twitter-text (with the core-js polyfills it brings, ~1.5 MB of heap) loads with the first text it counts. */
function twitter(): typeof TwitterText {
  loaded ??= requireLazily('twitter-text') as typeof TwitterText;
  return loaded;
}

export function countText(text: string, method: ProviderValidationRules['textCounting']): number {
  switch (method) {
    case 'x_weighted':
      return twitter().parseTweet(text).weightedLength;
    case 'utf8_bytes':
      return Buffer.byteLength(text, 'utf8');
    case 'utf16_units':
      // TikTok counts "UTF-16 runes": an emoji outside the BMP counts 2
      return text.length;
    default:
      return codePointCount(text);
  }
}

export const countUrls = (text: string): number => twitter().extractUrls(text).length;
export const countHashtags = (text: string): number => twitter().extractHashtags(text).length;
export const countMentions = (text: string): number => twitter().extractMentions(text).length;
