/**
 * Pure validation of a publish plan against each target platform's capability rules. No I/O: the
 * caller gathers the facts (brand, product, channels, resolved media) and this returns every issue,
 * each naming its target, field path, code, severity and a human message.
 */
import type { MediaKind, Platform, ProviderSettingRule } from '../../providers/provider.js';
import { PLATFORMS } from '../../providers/provider.js';
import type { ChannelFactsForPublishing } from '../channels/channels.module.js';
import { PLATFORM_RULES } from './platform-rules.js';
import type { StoredMedia } from './publishing.tables.js';
import { countHashtags, countMentions, countText, countUrls } from './text-count.js';

export type Severity = 'blocking' | 'warning';

export interface PlanIssue {
  targetIndex: number | null;
  channelAccountId: string | null;
  path: string[];
  code: string;
  severity: Severity;
  message: string;
}

export interface PlanTargetInput {
  platform: string;
  channelAccountId: string;
  text?: string;
  settings?: Record<string, unknown>;
}

/** A plan's channel as the channels area answers it (its read port's facts; `usable`: a usable token). */
export type ChannelFacts = ChannelFactsForPublishing;

/** A media item of the plan with the path it came from (media[i] or mediaLibraryItemIds[j]). */
export interface PlanMedia extends StoredMedia {
  path: string[];
}

export interface ValidationFacts {
  brandId: string;
  brandExists: boolean;
  productId: string | null;
  productExists: boolean;
  text: string;
  media: PlanMedia[];
  targets: PlanTargetInput[];
  channels: Map<string, ChannelFacts>;
  /** issues found while resolving the plan (unknown media ids, profile expansion) */
  resolutionIssues: PlanIssue[];
}

export interface ValidatedTarget {
  index: number;
  platform: string;
  channelAccountId: string;
  text: string;
  settings: Record<string, unknown>;
  textLength: number;
  maxTextLength: number | null;
  channelState: string | null;
  issues: PlanIssue[];
}

export interface PlanValidation {
  valid: boolean;
  targets: ValidatedTarget[];
  /** every issue of the plan: plan-level ones and those of each target */
  issues: PlanIssue[];
}

const MB = 1024 * 1024;
const fmtBytes = (n: number) => (n >= MB ? `${(n / MB).toFixed(1)} MB` : `${n} bytes`);
export const FIRST_COMMENT_MAX_DELAY_MS = 86_400_000;

function isPlatform(p: string): p is Platform {
  return (PLATFORMS as readonly string[]).includes(p);
}

class IssueList {
  readonly items: PlanIssue[] = [];
  constructor(
    private readonly targetIndex: number | null,
    private readonly channelAccountId: string | null,
  ) {}
  add(severity: Severity, code: string, path: string[], message: string) {
    this.items.push({
      targetIndex: this.targetIndex,
      channelAccountId: this.channelAccountId,
      path,
      code,
      severity,
      message,
    });
  }
  block(code: string, path: string[], message: string) {
    this.add('blocking', code, path, message);
  }
  warn(code: string, path: string[], message: string) {
    this.add('warning', code, path, message);
  }
}

export function validatePlan(facts: ValidationFacts): PlanValidation {
  const plan = new IssueList(null, null);
  if (!facts.brandExists) plan.block('brand_not_found', ['brandId'], `No brand ${facts.brandId} in the organization.`);
  if (facts.productId && !facts.productExists) {
    plan.block('product_not_found', ['productId'], `No product ${facts.productId} in brand ${facts.brandId}.`);
  }
  if (facts.targets.length === 0)
    plan.block('targets_required', ['targets'], 'The plan has no targets (give targets or a profile with enabled connected channels).');
  const seen = new Map<string, number>();
  const targets = facts.targets.map((t, index) => {
    const v = validateTarget(facts, t, index);
    const first = seen.get(t.channelAccountId);
    if (first !== undefined) {
      v.issues.push({
        targetIndex: index,
        channelAccountId: t.channelAccountId,
        path: ['targets', String(index), 'channelAccountId'],
        code: 'duplicate_target',
        severity: 'blocking',
        message: `Channel ${t.channelAccountId} is already target ${first}; a job publishes once per channel.`,
      });
    } else seen.set(t.channelAccountId, index);
    return v;
  });
  const issues = [...facts.resolutionIssues, ...plan.items, ...targets.flatMap((t) => t.issues)];
  return {
    valid: !issues.some((i) => i.severity === 'blocking'),
    targets,
    issues,
  };
}

function validateTarget(facts: ValidationFacts, t: PlanTargetInput, index: number): ValidatedTarget {
  const base = ['targets', String(index)];
  const list = new IssueList(index, t.channelAccountId);
  // an explicit empty string stays empty; only an absent text inherits the plan's
  const text = t.text !== undefined ? t.text : facts.text;
  const textPath = t.text !== undefined ? [...base, 'text'] : ['text'];
  const settings = t.settings ?? {};
  const channel = facts.channels.get(t.channelAccountId) ?? null;
  const out: ValidatedTarget = {
    index,
    platform: t.platform,
    channelAccountId: t.channelAccountId,
    text,
    settings,
    textLength: [...text].length,
    maxTextLength: null,
    channelState: channel?.state ?? null,
    issues: list.items,
  };

  if (!channel)
    list.block('channel_not_found', [...base, 'channelAccountId'], `No channel account ${t.channelAccountId} in the organization.`);
  else {
    if (channel.platform !== t.platform) {
      list.block(
        'channel_platform_mismatch',
        [...base, 'platform'],
        `Channel ${t.channelAccountId} is a ${channel.platform} channel, not ${t.platform}.`,
      );
    }
    if (!channel.usable) {
      list.block(
        'channel_not_connected',
        [...base, 'channelAccountId'],
        `Channel ${t.channelAccountId} is ${channel.state}; reconnect it before publishing.`,
      );
    } else if (channel.state !== 'connected') {
      list.warn(
        'channel_token_expiring',
        [...base, 'channelAccountId'],
        `The token of channel ${t.channelAccountId} expires soon; refresh or reconnect it.`,
      );
    }
    if (channel.brandId && channel.brandId !== facts.brandId) {
      list.warn(
        'channel_brand_mismatch',
        [...base, 'channelAccountId'],
        `Channel ${t.channelAccountId} belongs to brand ${channel.brandId}, not ${facts.brandId}.`,
      );
    }
  }
  if (!isPlatform(t.platform)) {
    list.block('platform_unknown', [...base, 'platform'], `Unknown platform ${t.platform}.`);
    return out;
  }
  const { capability, rules } = PLATFORM_RULES[t.platform];
  const extra = rules.extra ?? {};
  const media = facts.media;

  // ---- text
  const length = countText(text, rules.textCounting);
  out.textLength = length;
  // a photo post may carry its text in a longer field (TikTok: description instead of title)
  const photoOnly = media.length > 0 && media.every((m) => m.kind === 'image');
  const maxText =
    photoOnly && typeof extra.photoDescriptionMaxLength === 'number' ? extra.photoDescriptionMaxLength : capability.maxTextLength;
  out.maxTextLength = maxText ?? null;
  const unit =
    rules.textCounting === 'utf8_bytes'
      ? 'bytes'
      : rules.textCounting === 'utf16_units'
        ? 'UTF-16 code units'
        : rules.textCounting === 'x_weighted'
          ? 'weighted characters (URLs count 23)'
          : 'characters';
  if (maxText !== undefined && length > maxText) {
    list.block('text_too_long', textPath, `${capability.displayName} allows ${maxText} ${unit}; this text has ${length}.`);
  }
  if (text.trim() === '') {
    if (!rules.textOptional) list.block('text_required', textPath, `${capability.displayName} needs text.`);
    else if (extra.textOrMediaRequired && media.length === 0)
      list.block('text_or_media_required', textPath, `${capability.displayName} needs text or media.`);
  }
  if (typeof extra.forbiddenCharacters === 'string') {
    const bad = [...extra.forbiddenCharacters].filter((c) => text.includes(c));
    if (bad.length > 0)
      list.block('text_forbidden_characters', textPath, `${capability.displayName} text may not contain ${bad.join(' ')}.`);
  }
  if (typeof extra.maxLinks === 'number' && countUrls(text) > extra.maxLinks) {
    list.block('too_many_links', textPath, `${capability.displayName} allows at most ${extra.maxLinks} links per post.`);
  }
  if (typeof extra.maxHashtags === 'number' && countHashtags(text) > extra.maxHashtags) {
    list.block('too_many_hashtags', textPath, `${capability.displayName} allows at most ${extra.maxHashtags} hashtags.`);
  }
  if (typeof extra.maxMentions === 'number' && countMentions(text) > extra.maxMentions) {
    list.block('too_many_mentions', textPath, `${capability.displayName} allows at most ${extra.maxMentions} mentions.`);
  }

  // ---- media
  const rule = capability.mediaRule;
  if (media.length < rule.minItems || (rules.mediaRequired && media.length === 0)) {
    list.block('media_required', ['media'], `${capability.displayName} needs at least ${Math.max(1, rule.minItems)} media item(s).`);
  }
  if (media.length > rule.maxItems) {
    list.block(
      'too_many_media',
      ['media'],
      `${capability.displayName} allows at most ${rule.maxItems} media items; the plan has ${media.length}.`,
    );
  }
  const kinds = new Set(media.map((m) => m.kind));
  if (!rules.allowMixedKinds && kinds.size > 1) {
    list.block('media_kinds_mixed', ['media'], `${capability.displayName} cannot mix ${[...kinds].join(' and ')} in one post.`);
  }
  const perKind: Array<[MediaKind, unknown]> = [
    ['image', extra.maxImages ?? extra.maxPhotoCount],
    ['video', extra.maxVideos],
    ['gif', extra.maxGifs],
  ];
  for (const [kind, max] of perKind) {
    const n = media.filter((m) => m.kind === kind).length;
    if (typeof max === 'number' && n > max)
      list.block('too_many_media', ['media'], `${capability.displayName} allows at most ${max} ${kind} item(s) per post.`);
  }
  media.forEach((m) => {
    const p = m.path;
    if (!rule.allowedKinds.includes(m.kind)) {
      list.block(
        'media_kind_not_allowed',
        [...p, 'kind'],
        `${capability.displayName} does not accept ${m.kind} (allowed: ${rule.allowedKinds.join(', ')}).`,
      );
      return;
    }
    const maxBytes =
      m.kind === 'image' ? rule.maxImageBytes : m.kind === 'video' ? rule.maxVideoBytes : (rule.maxGifBytes ?? rule.maxImageBytes);
    if (maxBytes !== undefined && m.bytes !== null && m.bytes > maxBytes) {
      list.block(
        'media_too_large',
        [...p, 'bytes'],
        `${capability.displayName} accepts ${m.kind} up to ${fmtBytes(maxBytes)}; this one has ${fmtBytes(m.bytes)}.`,
      );
    }
    if (m.bytes === null && maxBytes !== undefined)
      list.warn('media_size_unknown', p, 'The media size is unknown; the platform may refuse it.');
    if (m.kind === 'video') {
      const d = m.durationSeconds;
      if (d === null) {
        if (rule.minVideoDurationSeconds !== undefined || rule.maxVideoDurationSeconds !== undefined) {
          list.warn('media_duration_unknown', p, 'The video duration is unknown; upload it to the media library so it can be checked.');
        }
      } else {
        if (rule.minVideoDurationSeconds !== undefined && d < rule.minVideoDurationSeconds) {
          list.block(
            'video_too_short',
            [...p, 'durationSeconds'],
            `${capability.displayName} needs videos of at least ${rule.minVideoDurationSeconds} s; this one is ${d} s.`,
          );
        }
        if (rule.maxVideoDurationSeconds !== undefined && d > rule.maxVideoDurationSeconds) {
          list.block(
            'video_too_long',
            [...p, 'durationSeconds'],
            `${capability.displayName} accepts videos up to ${rule.maxVideoDurationSeconds} s; this one is ${d} s.`,
          );
        }
        if (rule.dynamicMaxVideoDurationSetting) {
          list.warn(
            'video_duration_checked_at_publish',
            p,
            `The account's own limit (${rule.dynamicMaxVideoDurationSetting}) is checked when publishing.`,
          );
        }
      }
      if (rule.requiresVideoThumbnail && !m.metadata.thumbnailUrl)
        list.warn('video_thumbnail_missing', p, `${capability.displayName} expects a video thumbnail.`);
      const minSide = extra.minVideoSidePixels;
      const maxSide = extra.maxVideoSidePixels;
      if (m.width !== null && m.height !== null) {
        if (typeof minSide === 'number' && Math.min(m.width, m.height) < minSide)
          list.block('video_too_small', p, `${capability.displayName} needs videos of at least ${minSide} px per side.`);
        if (typeof maxSide === 'number' && Math.max(m.width, m.height) > maxSide)
          list.block('video_too_large_dimensions', p, `${capability.displayName} accepts videos up to ${maxSide} px per side.`);
      }
    }
    if (m.width !== null && m.height !== null && m.height > 0) {
      if (m.kind === 'image' && rules.minImageWidth !== undefined && m.width < rules.minImageWidth) {
        list.block(
          'image_too_small',
          [...p, 'width'],
          `${capability.displayName} needs images at least ${rules.minImageWidth} px wide; this one is ${m.width} px.`,
        );
      }
      if (m.kind === 'image' && rules.maxImageWidth !== undefined && m.width > rules.maxImageWidth) {
        list.warn(
          'image_will_be_resized',
          [...p, 'width'],
          `${capability.displayName} scales images wider than ${rules.maxImageWidth} px down.`,
        );
      }
      const ratio = m.width / m.height;
      const lo = rules.minAspectRatio;
      const hi = rules.maxAspectRatio;
      if ((lo !== undefined && ratio < lo - 1e-3) || (hi !== undefined && ratio > hi + 1e-3)) {
        list.block(
          'aspect_ratio_out_of_range',
          p,
          `${capability.displayName} accepts aspect ratios ${lo?.toFixed(2) ?? '0'} to ${hi?.toFixed(2) ?? '∞'}; this item is ${ratio.toFixed(2)}.`,
        );
      }
    } else if (m.kind === 'image' && (rules.minImageWidth !== undefined || rules.minAspectRatio !== undefined)) {
      list.warn('media_dimensions_unknown', p, 'The image dimensions are unknown; the platform may refuse them.');
    }
    const altMax = extra.altTextMaxLength ?? extra.altTextMaxChars;
    if (typeof altMax === 'number' && m.altText && [...m.altText].length > altMax) {
      list.block('alt_text_too_long', [...p, 'altText'], `${capability.displayName} allows alt text up to ${altMax} characters.`);
    }
  });

  // ---- settings
  validateSettings(list, base, settings, capability.settingRules ?? [], capability.settingsFields, capability.displayName);
  const title = settings.title;
  if (typeof title === 'string') {
    const titleMax = extra.titleMaxChars ?? (media.some((m) => m.kind === 'image') ? extra.photoTitleMaxLength : undefined);
    if (typeof titleMax === 'number' && [...title].length > titleMax) {
      list.block(
        'setting_too_long',
        [...base, 'settings', 'title'],
        `${capability.displayName} titles are at most ${titleMax} characters.`,
      );
    }
    if (typeof extra.forbiddenCharacters === 'string' && [...extra.forbiddenCharacters].some((c) => title.includes(c))) {
      list.block(
        'text_forbidden_characters',
        [...base, 'settings', 'title'],
        `${capability.displayName} titles may not contain ${extra.forbiddenCharacters}.`,
      );
    }
  }
  if (typeof settings.tags === 'string' && typeof extra.tagsMaxChars === 'number' && settings.tags.length > extra.tagsMaxChars) {
    list.block(
      'setting_too_long',
      [...base, 'settings', 'tags'],
      `${capability.displayName} tags are at most ${extra.tagsMaxChars} characters in total.`,
    );
  }
  if (typeof settings.link === 'string' && typeof extra.linkMaxChars === 'number' && settings.link.length > extra.linkMaxChars) {
    list.block(
      'setting_too_long',
      [...base, 'settings', 'link'],
      `${capability.displayName} links are at most ${extra.linkMaxChars} characters.`,
    );
  }
  if (extra.brandedContentNotPrivate && settings.brand_content_toggle === true && settings.privacy_level === 'SELF_ONLY') {
    list.block('setting_conflict', [...base, 'settings', 'privacy_level'], 'Branded content cannot be private (SELF_ONLY).');
  }
  validateFirstComment(list, base, settings.firstComment, capability.plugNames.includes('firstComment'), capability.displayName);
  return out;
}

function validateSettings(
  list: IssueList,
  base: string[],
  settings: Record<string, unknown>,
  rules: ProviderSettingRule[],
  fields: string[],
  name: string,
) {
  for (const r of rules) {
    const path = [...base, 'settings', r.field];
    const v = settings[r.field];
    if (v === undefined || v === null || v === '') {
      if (r.required) list.block('setting_required', path, `${name} needs the setting ${r.field} (${r.label}).`);
      continue;
    }
    if (typeof v !== r.valueType) {
      list.block('setting_invalid_type', path, `${r.field} must be a ${r.valueType}.`);
      continue;
    }
    if (r.allowedValues && !r.allowedValues.includes(String(v))) {
      list.block('setting_value_not_allowed', path, `${r.field} must be one of ${r.allowedValues.join(', ')}.`);
    }
  }
  for (const key of Object.keys(settings)) {
    if (key === 'firstComment' || fields.includes(key)) continue;
    list.warn('setting_unknown', [...base, 'settings', key], `${name} does not use the setting ${key}; it is ignored.`);
  }
}

function validateFirstComment(list: IssueList, base: string[], fc: unknown, supported: boolean, name: string) {
  if (fc === undefined || fc === null) return;
  const path = [...base, 'settings', 'firstComment'];
  if (!supported) {
    list.block('plug_not_supported', path, `${name} does not support the firstComment plug.`);
    return;
  }
  if (typeof fc !== 'object' || Array.isArray(fc)) {
    list.block('setting_invalid_type', path, 'firstComment must be an object {content, delayMs}.');
    return;
  }
  const { content, delayMs, ...rest } = fc as Record<string, unknown>;
  if (typeof content !== 'string' || content.trim() === '')
    list.block('setting_required', [...path, 'content'], 'firstComment.content must be a non-empty string.');
  if (
    delayMs !== undefined &&
    (typeof delayMs !== 'number' || !Number.isInteger(delayMs) || delayMs < 0 || delayMs > FIRST_COMMENT_MAX_DELAY_MS)
  ) {
    list.block(
      'setting_invalid_type',
      [...path, 'delayMs'],
      `firstComment.delayMs must be an integer from 0 to ${FIRST_COMMENT_MAX_DELAY_MS}.`,
    );
  }
  for (const k of Object.keys(rest)) list.warn('setting_unknown', [...path, k], `firstComment.${k} is ignored.`);
}
