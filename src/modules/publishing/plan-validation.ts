/**
 * Pure validation of a publish plan against each target platform's capability rules. No I/O: the
 * caller gathers the facts (brand, product, channels, resolved media) and this returns every issue,
 * each naming its target, field path, code, severity and a human message. The plan and each target's
 * channel are checked here; a target's text, media and settings in plan-text.ts, plan-media.ts and
 * plan-settings.ts, with the platform's rules read through platform-rules.ts.
 */
import { codePointCount } from '../../platform/code-points.js';
import type { Platform } from '../../providers/provider.js';
import { PLATFORMS } from '../../providers/provider.js';
import type { ChannelFactsForPublishing } from '../channels/channels.module.js';
import { IssueList, type PlanIssue, type PlanMedia, type TargetCheck } from './plan-checks.js';
import { checkMedia } from './plan-media.js';
import { checkSettings } from './plan-settings.js';
import { checkText } from './plan-text.js';
import { PLATFORM_RULES } from './platform-rules.js';

export type { PlanIssue, PlanMedia } from './plan-checks.js';

export interface PlanTargetInput {
  platform: string;
  channelAccountId: string;
  text?: string;
  settings?: Record<string, unknown>;
}

/** A plan's channel as the channels area answers it (its read port's facts; `usable`: a usable token). */
export type ChannelFacts = ChannelFactsForPublishing;

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

interface ValidatedTarget {
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

function isPlatform(p: string): p is Platform {
  return (PLATFORMS as readonly string[]).includes(p);
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

/** One target: its channel, then (on a known platform) its text, the plan's media and its settings. */
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
    textLength: codePointCount(text),
    maxTextLength: null,
    channelState: channel?.state ?? null,
    issues: list.items,
  };

  checkChannel(list, base, t, channel, facts.brandId);
  if (!isPlatform(t.platform)) {
    list.block('platform_unknown', [...base, 'platform'], `Unknown platform ${t.platform}.`);
    return out;
  }
  const { capability, rules } = PLATFORM_RULES[t.platform];
  const check: TargetCheck = { list, base, capability, rules, extra: rules.extra ?? {}, media: facts.media, name: capability.displayName };
  const { length, maxLength } = checkText(check, text, textPath);
  out.textLength = length;
  out.maxTextLength = maxLength;
  checkMedia(check);
  checkSettings(check, settings);
  return out;
}

/** The target's channel: known, of the target's platform, with a usable token, of the plan's brand. */
function checkChannel(list: IssueList, base: string[], t: PlanTargetInput, channel: ChannelFacts | null, brandId: string) {
  if (!channel) {
    list.block('channel_not_found', [...base, 'channelAccountId'], `No channel account ${t.channelAccountId} in the organization.`);
    return;
  }
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
  if (channel.brandId && channel.brandId !== brandId) {
    list.warn(
      'channel_brand_mismatch',
      [...base, 'channelAccountId'],
      `Channel ${t.channelAccountId} belongs to brand ${channel.brandId}, not ${brandId}.`,
    );
  }
}
