/** Tier limits of the tool API, exactly as the specification's limits table. */

export type MembershipTier = 'basic' | 'pro' | 'max';
export type ToolName = 'utm-builder' | 'qrcode';

export interface TierLimits {
  /** Daily quota: links for the UTM builder, requests for the QR generator. */
  dailyQuota: Record<ToolName, number>;
  utmLinksPerRequest: number;
  requestsPerMinute: number;
  /** Largest accepted request body in bytes (413 payload_too_large above it). */
  maxBodyBytes: number;
}

/**
 * Body limits: a Pro batch of 100 URLs of 2 KB each is ~200 KB and a Max batch of 500 is ~1 MB, so the limits
 * leave room for long landing-page URLs without letting a single request hold megabytes in memory.
 */
export const TIER_LIMITS: Record<Exclude<MembershipTier, 'basic'>, TierLimits> = {
  pro: {
    dailyQuota: { 'utm-builder': 1_000, qrcode: 500 },
    utmLinksPerRequest: 100,
    requestsPerMinute: 60,
    maxBodyBytes: 256 * 1024,
  },
  max: {
    dailyQuota: { 'utm-builder': 10_000, qrcode: 5_000 },
    utmLinksPerRequest: 500,
    requestsPerMinute: 200,
    maxBodyBytes: 1024 * 1024,
  },
};

/** Bodies are read up to this size before the tier is applied; also the limit before authentication. */
export const TOOL_MAX_BODY_BYTES = TIER_LIMITS.max.maxBodyBytes;

export function tierLimits(tier: string): TierLimits | null {
  return tier === 'pro' || tier === 'max' ? TIER_LIMITS[tier] : null;
}

export const TOOL_SCOPES: Record<ToolName, string> = {
  'utm-builder': 'tools:utm-builder:build',
  qrcode: 'tools:qrcode:generate',
};

/** `tools:*` grants every tool; `tools:<tool>:*` every action of one tool. */
export const TOOL_WILDCARD_SCOPE = 'tools:*';

export function isKnownScope(scope: string): boolean {
  if (scope === TOOL_WILDCARD_SCOPE) return true;
  for (const [tool, name] of Object.entries(TOOL_SCOPES)) {
    if (scope === name || scope === `tools:${tool}:*`) return true;
  }
  return false;
}

export function scopeAllows(scopes: readonly string[], tool: ToolName): boolean {
  return scopes.some((scope) => scope === TOOL_WILDCARD_SCOPE || scope === TOOL_SCOPES[tool] || scope === `tools:${tool}:*`);
}
