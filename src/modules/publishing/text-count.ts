/**
 * Text length as each platform counts it: X's weighted count (URLs count 23, CJK and emoji 2) through
 * the official twitter-text library; UTF-8 bytes (YouTube descriptions, Threads); otherwise Unicode
 * code points.
 */
import twitterText from 'twitter-text';
import type { ProviderValidationRules } from '../../providers/provider.js';

export function countText(text: string, method: ProviderValidationRules['textCounting']): number {
  switch (method) {
    case 'x_weighted':
      return twitterText.parseTweet(text).weightedLength;
    case 'utf8_bytes':
      return Buffer.byteLength(text, 'utf8');
    case 'utf16_units':
      // TikTok counts "UTF-16 runes": an emoji outside the BMP counts 2
      return text.length;
    default:
      return [...text].length;
  }
}

export const countUrls = (text: string): number => twitterText.extractUrls(text).length;
export const countHashtags = (text: string): number => twitterText.extractHashtags(text).length;
export const countMentions = (text: string): number => twitterText.extractMentions(text).length;
