/**
 * A target's settings against its platform's rules: the declared setting rules and fields, the length
 * limits of title, tags and link, conflicting settings, and the firstComment plug.
 */
import { codePointCount } from '../../platform/code-points.js';
import type { TargetCheck } from './plan-checks.js';

const FIRST_COMMENT_MAX_DELAY_MS = 86_400_000;

export function checkSettings(check: TargetCheck, settings: Record<string, unknown>) {
  checkSettingRules(check, settings);
  checkTitle(check, settings.title);
  checkSettingLengths(check, settings);
  checkSettingConflicts(check, settings);
  checkFirstComment(check, settings.firstComment);
}

const settingPath = (base: string[], key: string) => [...base, 'settings', key];

/** The platform's setting rules (required, type, allowed values), then settings it does not use. */
function checkSettingRules({ list, base, capability, name }: TargetCheck, settings: Record<string, unknown>) {
  // the path is built only for an issue: this runs for every rule of every target of a plan
  for (const r of capability.settingRules ?? []) {
    const v = settings[r.field];
    if (v === undefined || v === null || v === '') {
      if (r.required) list.block('setting_required', settingPath(base, r.field), `${name} needs the setting ${r.field} (${r.label}).`);
      continue;
    }
    if (typeof v !== r.valueType) {
      list.block('setting_invalid_type', settingPath(base, r.field), `${r.field} must be a ${r.valueType}.`);
      continue;
    }
    if (r.allowedValues && !r.allowedValues.includes(String(v))) {
      list.block('setting_value_not_allowed', settingPath(base, r.field), `${r.field} must be one of ${r.allowedValues.join(', ')}.`);
    }
  }
  for (const key of Object.keys(settings)) {
    if (key === 'firstComment' || capability.settingsFields.includes(key)) continue;
    list.warn('setting_unknown', settingPath(base, key), `${name} does not use the setting ${key}; it is ignored.`);
  }
}

/** The title's length (a post with images may have its own title limit) and forbidden characters. */
function checkTitle({ list, base, extra, media, name }: TargetCheck, title: unknown) {
  if (typeof title !== 'string') return;
  const titleMax = extra.titleMaxChars ?? (media.some((m) => m.kind === 'image') ? extra.photoTitleMaxLength : undefined);
  if (typeof titleMax === 'number' && codePointCount(title) > titleMax) {
    list.block('setting_too_long', settingPath(base, 'title'), `${name} titles are at most ${titleMax} characters.`);
  }
  if (typeof extra.forbiddenCharacters === 'string' && [...extra.forbiddenCharacters].some((c) => title.includes(c))) {
    list.block('text_forbidden_characters', settingPath(base, 'title'), `${name} titles may not contain ${extra.forbiddenCharacters}.`);
  }
}

function checkSettingLengths({ list, base, extra, name }: TargetCheck, settings: Record<string, unknown>) {
  if (typeof settings.tags === 'string' && typeof extra.tagsMaxChars === 'number' && settings.tags.length > extra.tagsMaxChars) {
    list.block('setting_too_long', settingPath(base, 'tags'), `${name} tags are at most ${extra.tagsMaxChars} characters in total.`);
  }
  if (typeof settings.link === 'string' && typeof extra.linkMaxChars === 'number' && settings.link.length > extra.linkMaxChars) {
    list.block('setting_too_long', settingPath(base, 'link'), `${name} links are at most ${extra.linkMaxChars} characters.`);
  }
}

function checkSettingConflicts({ list, base, extra }: TargetCheck, settings: Record<string, unknown>) {
  if (extra.brandedContentNotPrivate && settings.brand_content_toggle === true && settings.privacy_level === 'SELF_ONLY') {
    list.block('setting_conflict', settingPath(base, 'privacy_level'), 'Branded content cannot be private (SELF_ONLY).');
  }
}

/** settings.firstComment: {content, delayMs}, on a platform with the firstComment plug. */
function checkFirstComment({ list, base, capability, name }: TargetCheck, fc: unknown) {
  if (fc === undefined || fc === null) return;
  const path = settingPath(base, 'firstComment');
  if (!capability.plugNames.includes('firstComment')) {
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
