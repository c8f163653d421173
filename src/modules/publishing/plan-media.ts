/**
 * The plan's media against a target platform's rules: the number and kinds of items, then each item's
 * kind, size, video duration, thumbnail and sides, image width and aspect ratio, and alt text.
 */
import type { MediaKind, ProviderMediaRule } from '../../providers/provider.js';
import type { PlanMedia, TargetCheck } from './plan-checks.js';

const MB = 1024 * 1024;
const fmtBytes = (n: number) => (n >= MB ? `${(n / MB).toFixed(1)} MB` : `${n} bytes`);

export function checkMedia(check: TargetCheck) {
  checkMediaCounts(check);
  for (const m of check.media) checkMediaItem(check, m);
}

/** How many items, of which kinds, in the whole post. */
function checkMediaCounts({ list, capability, rules, extra, media, name }: TargetCheck) {
  const rule = capability.mediaRule;
  if (media.length < rule.minItems || (rules.mediaRequired && media.length === 0)) {
    list.block('media_required', ['media'], `${name} needs at least ${Math.max(1, rule.minItems)} media item(s).`);
  }
  if (media.length > rule.maxItems) {
    list.block('too_many_media', ['media'], `${name} allows at most ${rule.maxItems} media items; the plan has ${media.length}.`);
  }
  // most plans carry no media: nothing below applies (it runs for every target of a batch)
  if (media.length === 0) return;
  const kinds = new Set(media.map((m) => m.kind));
  if (!rules.allowMixedKinds && kinds.size > 1) {
    list.block('media_kinds_mixed', ['media'], `${name} cannot mix ${[...kinds].join(' and ')} in one post.`);
  }
  const perKind: Array<[MediaKind, unknown]> = [
    ['image', extra.maxImages ?? extra.maxPhotoCount],
    ['video', extra.maxVideos],
    ['gif', extra.maxGifs],
  ];
  for (const [kind, max] of perKind) {
    const n = media.filter((m) => m.kind === kind).length;
    if (typeof max === 'number' && n > max)
      list.block('too_many_media', ['media'], `${name} allows at most ${max} ${kind} item(s) per post.`);
  }
}

/** One item: a kind the platform does not accept is its only issue. */
function checkMediaItem(check: TargetCheck, m: PlanMedia) {
  const rule = check.capability.mediaRule;
  if (!rule.allowedKinds.includes(m.kind)) {
    check.list.block(
      'media_kind_not_allowed',
      [...m.path, 'kind'],
      `${check.name} does not accept ${m.kind} (allowed: ${rule.allowedKinds.join(', ')}).`,
    );
    return;
  }
  checkMediaSize(check, m);
  if (m.kind === 'video') checkVideo(check, m);
  checkDimensions(check, m);
  checkAltText(check, m);
}

function maxBytesOf(rule: ProviderMediaRule, kind: MediaKind): number | undefined {
  return kind === 'image' ? rule.maxImageBytes : kind === 'video' ? rule.maxVideoBytes : (rule.maxGifBytes ?? rule.maxImageBytes);
}

function checkMediaSize({ list, capability, name }: TargetCheck, m: PlanMedia) {
  const maxBytes = maxBytesOf(capability.mediaRule, m.kind);
  if (maxBytes !== undefined && m.bytes !== null && m.bytes > maxBytes) {
    list.block(
      'media_too_large',
      [...m.path, 'bytes'],
      `${name} accepts ${m.kind} up to ${fmtBytes(maxBytes)}; this one has ${fmtBytes(m.bytes)}.`,
    );
  }
  if (m.bytes === null && maxBytes !== undefined)
    list.warn('media_size_unknown', m.path, 'The media size is unknown; the platform may refuse it.');
}

function checkVideo(check: TargetCheck, m: PlanMedia) {
  checkVideoDuration(check, m);
  if (check.capability.mediaRule.requiresVideoThumbnail && !m.metadata.thumbnailUrl)
    check.list.warn('video_thumbnail_missing', m.path, `${check.name} expects a video thumbnail.`);
  checkVideoSides(check, m);
}

function checkVideoDuration({ list, capability, name }: TargetCheck, m: PlanMedia) {
  const rule = capability.mediaRule;
  const p = m.path;
  const d = m.durationSeconds;
  if (d === null) {
    if (rule.minVideoDurationSeconds !== undefined || rule.maxVideoDurationSeconds !== undefined) {
      list.warn('media_duration_unknown', p, 'The video duration is unknown; upload it to the media library so it can be checked.');
    }
    return;
  }
  if (rule.minVideoDurationSeconds !== undefined && d < rule.minVideoDurationSeconds) {
    list.block(
      'video_too_short',
      [...p, 'durationSeconds'],
      `${name} needs videos of at least ${rule.minVideoDurationSeconds} s; this one is ${d} s.`,
    );
  }
  if (rule.maxVideoDurationSeconds !== undefined && d > rule.maxVideoDurationSeconds) {
    list.block(
      'video_too_long',
      [...p, 'durationSeconds'],
      `${name} accepts videos up to ${rule.maxVideoDurationSeconds} s; this one is ${d} s.`,
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

/** A video's shorter and longer side against the platform's pixel bounds. */
function checkVideoSides({ list, extra, name }: TargetCheck, m: PlanMedia) {
  const minSide = extra.minVideoSidePixels;
  const maxSide = extra.maxVideoSidePixels;
  if (m.width === null || m.height === null) return;
  if (typeof minSide === 'number' && Math.min(m.width, m.height) < minSide)
    list.block('video_too_small', m.path, `${name} needs videos of at least ${minSide} px per side.`);
  if (typeof maxSide === 'number' && Math.max(m.width, m.height) > maxSide)
    list.block('video_too_large_dimensions', m.path, `${name} accepts videos up to ${maxSide} px per side.`);
}

/** Width and aspect ratio when both sides are known; a warning for an image whose limits cannot be checked. */
function checkDimensions(check: TargetCheck, m: PlanMedia) {
  if (m.width !== null && m.height !== null && m.height > 0) {
    if (m.kind === 'image') checkImageWidth(check, m.path, m.width);
    checkAspectRatio(check, m.path, m.width / m.height);
  } else if (m.kind === 'image' && (check.rules.minImageWidth !== undefined || check.rules.minAspectRatio !== undefined)) {
    check.list.warn('media_dimensions_unknown', m.path, 'The image dimensions are unknown; the platform may refuse them.');
  }
}

function checkImageWidth({ list, rules, name }: TargetCheck, p: string[], width: number) {
  if (rules.minImageWidth !== undefined && width < rules.minImageWidth) {
    list.block(
      'image_too_small',
      [...p, 'width'],
      `${name} needs images at least ${rules.minImageWidth} px wide; this one is ${width} px.`,
    );
  }
  if (rules.maxImageWidth !== undefined && width > rules.maxImageWidth) {
    list.warn('image_will_be_resized', [...p, 'width'], `${name} scales images wider than ${rules.maxImageWidth} px down.`);
  }
}

function checkAspectRatio({ list, rules, name }: TargetCheck, p: string[], ratio: number) {
  const lo = rules.minAspectRatio;
  const hi = rules.maxAspectRatio;
  if ((lo !== undefined && ratio < lo - 1e-3) || (hi !== undefined && ratio > hi + 1e-3)) {
    list.block(
      'aspect_ratio_out_of_range',
      p,
      `${name} accepts aspect ratios ${lo?.toFixed(2) ?? '0'} to ${hi?.toFixed(2) ?? '∞'}; this item is ${ratio.toFixed(2)}.`,
    );
  }
}

function checkAltText({ list, extra, name }: TargetCheck, m: PlanMedia) {
  const altMax = extra.altTextMaxLength ?? extra.altTextMaxChars;
  if (typeof altMax === 'number' && m.altText && [...m.altText].length > altMax) {
    list.block('alt_text_too_long', [...m.path, 'altText'], `${name} allows alt text up to ${altMax} characters.`);
  }
}
