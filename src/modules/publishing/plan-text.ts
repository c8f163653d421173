/**
 * A target's text against its platform's rules: the length as the platform counts it (text-count.ts),
 * required text, forbidden characters, and the link, hashtag and mention limits.
 */
import type { ProviderValidationRules } from '../../providers/provider.js';
import type { TargetCheck } from './plan-checks.js';
import { countHashtags, countMentions, countText, countUrls } from './text-count.js';

/** the unit a length limit is given in, by counting method */
const UNITS: Record<ProviderValidationRules['textCounting'], string> = {
  characters: 'characters',
  utf16_units: 'UTF-16 code units',
  utf8_bytes: 'bytes',
  x_weighted: 'weighted characters (URLs count 23)',
};

export interface TextLength {
  length: number;
  maxLength: number | null;
}

/** Checks the text (`path`: where it came from, the target's or the plan's) and answers its length and limit. */
export function checkText(check: TargetCheck, text: string, path: string[]): TextLength {
  const length = countText(text, check.rules.textCounting);
  const max = maxTextLength(check);
  if (max !== undefined && length > max) {
    check.list.block('text_too_long', path, `${check.name} allows ${max} ${UNITS[check.rules.textCounting]}; this text has ${length}.`);
  }
  checkTextPresent(check, text, path);
  checkTextContent(check, text, path);
  return { length, maxLength: max ?? null };
}

/** A photo post may carry its text in a longer field (TikTok: description instead of title). */
function maxTextLength({ capability, extra, media }: TargetCheck): number | undefined {
  const photoOnly = media.length > 0 && media.every((m) => m.kind === 'image');
  return photoOnly && typeof extra.photoDescriptionMaxLength === 'number' ? extra.photoDescriptionMaxLength : capability.maxTextLength;
}

function checkTextPresent({ list, rules, extra, media, name }: TargetCheck, text: string, path: string[]) {
  if (text.trim() !== '') return;
  if (!rules.textOptional) list.block('text_required', path, `${name} needs text.`);
  else if (extra.textOrMediaRequired && media.length === 0) list.block('text_or_media_required', path, `${name} needs text or media.`);
}

/** Forbidden characters and the link, hashtag and mention limits. */
function checkTextContent({ list, extra, name }: TargetCheck, text: string, path: string[]) {
  if (typeof extra.forbiddenCharacters === 'string') {
    const bad = [...extra.forbiddenCharacters].filter((c) => text.includes(c));
    if (bad.length > 0) list.block('text_forbidden_characters', path, `${name} text may not contain ${bad.join(' ')}.`);
  }
  if (typeof extra.maxLinks === 'number' && countUrls(text) > extra.maxLinks) {
    list.block('too_many_links', path, `${name} allows at most ${extra.maxLinks} links per post.`);
  }
  if (typeof extra.maxHashtags === 'number' && countHashtags(text) > extra.maxHashtags) {
    list.block('too_many_hashtags', path, `${name} allows at most ${extra.maxHashtags} hashtags.`);
  }
  if (typeof extra.maxMentions === 'number' && countMentions(text) > extra.maxMentions) {
    list.block('too_many_mentions', path, `${name} allows at most ${extra.maxMentions} mentions.`);
  }
}
