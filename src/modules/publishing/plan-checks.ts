/**
 * What the checks of a plan share: the issue shape, the list a target's issues go to, and the facts
 * every target check reads (the target's path, its platform's rules from platform-rules.ts, the plan's
 * media).
 */
import type { ProviderCapability, ProviderValidationRules } from '../../providers/provider.js';
import type { StoredMedia } from './publishing.tables.js';

export type Severity = 'blocking' | 'warning';

export interface PlanIssue {
  targetIndex: number | null;
  channelAccountId: string | null;
  path: string[];
  code: string;
  severity: Severity;
  message: string;
}

/** A media item of the plan with the path it came from (media[i] or mediaLibraryItemIds[j]). */
export interface PlanMedia extends StoredMedia {
  path: string[];
}

export class IssueList {
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

/** One target of a known platform, as its text, media and settings checks read it. */
export interface TargetCheck {
  list: IssueList;
  /** the target's path: targets.<index> */
  base: string[];
  capability: ProviderCapability;
  rules: ProviderValidationRules;
  /** the platform's additional named limits (rules.extra) */
  extra: NonNullable<ProviderValidationRules['extra']>;
  /** the plan's media */
  media: PlanMedia[];
  /** the platform's display name, as messages name it */
  name: string;
}
