/**
 * The SocialProvider port: the only contract between the platform adapters and the rest of the
 * service (channels, publishing engine, comments, analytics, provider tools).
 *
 * Adapters are the only code that knows a platform's HTTP API. Everything that crosses this port is
 * platform-neutral; every failure crossing it is a ProviderError with one of six categories, so the
 * publishing engine can decide retry / reconnect / fail / flag without knowing the platform.
 */

import { PLATFORMS, type Platform, type ProviderErrorCategory } from '../platform/social-platforms.js';
import type { FindRecentPostInput, ListingPages, RecentPostLookup } from './shared/recent-posts.js';

export type { FindRecentPostInput, ListingPages, RecentPostLookup };
export { PLATFORMS, type Platform, type ProviderErrorCategory };

export const MEDIA_KINDS = ['image', 'video', 'gif'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

export const PROVIDER_TOOL_NAMES = [
  'mentionSearch',
  'pageProfile',
  'channelCategories',
  'boardList',
  'privacyOptions',
  'communitySearch',
] as const;
export type ProviderToolName = (typeof PROVIDER_TOOL_NAMES)[number];

export const PROVIDER_PLUG_NAMES = ['firstComment', 'reply'] as const;
export type ProviderPlugName = (typeof PROVIDER_PLUG_NAMES)[number];

export const RATE_LIMIT_POLICIES = ['low_concurrency', 'standard', 'strict'] as const;
export type RateLimitPolicy = (typeof RATE_LIMIT_POLICIES)[number];

/* ------------------------------------------------------------------ capability data (spec shapes) */

export interface ProviderMediaRule {
  allowedKinds: MediaKind[];
  minItems: number;
  maxItems: number;
  notes: string[];
  maxImageBytes?: number;
  maxVideoBytes?: number;
  maxGifBytes?: number;
  minVideoDurationSeconds?: number;
  maxVideoDurationSeconds?: number;
  dynamicMaxVideoDurationSetting?: string;
  requiresVideoThumbnail?: boolean;
}

export interface ProviderSettingRule {
  field: string;
  label: string;
  valueType: 'string' | 'boolean' | 'number';
  required: boolean;
  allowedValues?: string[];
}

/** ProviderCapability exactly as the spec's schema (no additional properties). */
export interface ProviderCapability {
  platform: Platform;
  displayName: string;
  requiredScopes: string[];
  mediaRule: ProviderMediaRule;
  supportsScheduling: boolean;
  supportsComments: boolean;
  supportsAnalytics: boolean;
  supportsDelete: boolean;
  supportsUpdate: boolean;
  settingsFields: string[];
  toolNames: ProviderToolName[];
  plugNames: ProviderPlugName[];
  rateLimitPolicy: RateLimitPolicy;
  maxTextLength?: number;
  settingRules?: ProviderSettingRule[];
}

/**
 * Validation facts that do not fit the spec's capability shape but that plan validation needs
 * (text counting method, media mixing, dimensions). Kept beside the capability in each <p>.rules.ts.
 */
export interface ProviderValidationRules {
  /** how text length is counted: characters (code points), UTF-16 code units, bytes (UTF-8), or X's weighted count */
  textCounting: 'characters' | 'utf16_units' | 'utf8_bytes' | 'x_weighted';
  /** text may be empty (e.g. Instagram caption optional) */
  textOptional: boolean;
  /** a post needs at least one media item */
  mediaRequired: boolean;
  /** whether images and videos may be mixed in one post */
  allowMixedKinds: boolean;
  /** optional per-kind dimension and aspect bounds */
  minImageWidth?: number;
  maxImageWidth?: number;
  minAspectRatio?: number;
  maxAspectRatio?: number;
  /** additional named limits, e.g. title max length for YouTube */
  extra?: Record<string, number | string | boolean>;
}

/* ------------------------------------------------------------------ errors */

export class ProviderError extends Error {
  readonly category: ProviderErrorCategory;
  readonly platform: Platform;
  /** platform's own error code/subcode as a string, e.g. "190", "rate_limit_exceeded" */
  readonly providerCode: string | null;
  readonly httpStatus: number | null;
  readonly retryAfterSeconds: number | null;
  /** the platform's error body, with tokens removed; safe to store and show */
  readonly providerResponse: unknown;

  constructor(init: {
    platform: Platform;
    category: ProviderErrorCategory;
    message: string;
    providerCode?: string | null;
    httpStatus?: number | null;
    retryAfterSeconds?: number | null;
    providerResponse?: unknown;
  }) {
    super(init.message);
    this.name = 'ProviderError';
    this.platform = init.platform;
    this.category = init.category;
    this.providerCode = init.providerCode ?? null;
    this.httpStatus = init.httpStatus ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.providerResponse = init.providerResponse ?? null;
  }

  get retryable(): boolean {
    return this.category === 'transient' || this.category === 'rate_limited';
  }
}

/* ------------------------------------------------------------------ configuration */

/** One platform's app configuration, read from SERVICE_<PLATFORM>_* by config.ts. */
export interface ProviderAppConfig {
  clientId: string | null;
  clientSecret: string | null;
  redirectUri: string | null;
  /** REST API base, e.g. https://graph.facebook.com/v21.0 */
  apiBaseUrl: string;
  /** where the user is sent to authorize, e.g. https://www.facebook.com/v21.0 */
  authBaseUrl: string;
  /** upload host where the platform uses a separate one (YouTube, X media) */
  uploadBaseUrl: string;
  /** per-request timeout for calls to the platform */
  timeoutMs: number;
}

/* ------------------------------------------------------------------ OAuth */

interface AuthorizationUrlInput {
  state: string;
  redirectUri: string;
  scopes: string[];
  /** S256 PKCE challenge, present when the adapter's oauth.supportsPkce is true */
  codeChallenge?: string;
}

export interface OAuthTokens {
  accessToken: string;
  refreshToken: string | null;
  /** absolute expiry of the access token, null when it does not expire */
  expiresAt: Date | null;
  refreshTokenExpiresAt: Date | null;
  scopes: string[];
  /** non-secret facts the platform returns with the token (TikTok open_id, IG user_id, ...) */
  extra: Record<string, string>;
}

export interface ProviderOAuth {
  supportsPkce: boolean;
  supportsRefresh: boolean;
  supportsRevoke: boolean;
  defaultScopes: string[];
  authorizationUrl(input: AuthorizationUrlInput): string;
  exchangeCode(input: { code: string; redirectUri: string; codeVerifier?: string }): Promise<OAuthTokens>;
  /** refresh (or, for Meta long-lived tokens, extend) an access token */
  refresh(input: { refreshToken: string | null; accessToken: string }): Promise<OAuthTokens>;
  revoke(input: { accessToken: string; externalAccountId: string }): Promise<void>;
}

/** An account the connected token can publish as. */
export interface ProviderAccount {
  externalAccountId: string;
  displayName: string;
  handle: string | null;
  avatarUrl: string | null;
  /**
   * Some platforms issue a separate token per account (Facebook page access tokens). When present the
   * channel stores this token instead of the user token.
   */
  accountAccessToken?: string;
}

/* ------------------------------------------------------------------ calls on a connected channel */

export interface ProviderCallContext {
  accessToken: string;
  externalAccountId: string;
  /** channel additionalSettings (e.g. linked Facebook page id for instagram_business) */
  channelSettings: Record<string, unknown>;
  /** aborts the call (shutdown, job timeout) */
  signal?: AbortSignal;
}

export interface PublishMediaItem {
  kind: MediaKind;
  mimeType: string;
  bytes: number;
  /** a public URL the platform can fetch (our signed content URL or the bucket URL) */
  url: string;
  durationSeconds?: number;
  width?: number;
  height?: number;
  altText?: string;
  /** streams the bytes, for platforms that need an upload (YouTube, X, TikTok FILE_UPLOAD, Pinterest video) */
  open(): Promise<AsyncIterable<Uint8Array>>;
}

export interface PublishRequest {
  text: string;
  media: PublishMediaItem[];
  /** target settings validated against the capability's settingRules */
  settings: Record<string, unknown>;
  /** stable per target; adapters pass it where the platform supports idempotency */
  idempotencyKey: string;
}

/**
 * Result of publish() or pollPublish(). Asynchronous platforms (Instagram/Threads containers, TikTok,
 * YouTube processing) answer `processing` with an opaque pollToken; the engine calls pollPublish with it
 * after pollAfterMs until it answers `published` or throws.
 */
export type PublishResult =
  | { status: 'published'; providerPostId: string; url: string | null }
  | { status: 'processing'; pollToken: string; pollAfterMs: number; providerPostId?: string };

export interface ProviderComment {
  providerCommentId: string;
  parentProviderCommentId: string | null;
  body: string;
  authorName: string | null;
  authorHandle: string | null;
  permalinkUrl: string | null;
  providerCreatedAt: string | null;
  metrics: Record<string, number>;
  /** the platform's id of the author; equal to the channel's externalAccountId for the channel's own comments */
  authorId?: string | null;
  /** hidden by the account (where the platform reports it) */
  hidden?: boolean;
}

export interface ProviderPostAnalytics {
  capturedAt: string;
  metrics: Record<string, number>;
}

/** A reply budget as the platform reports it. */
export interface ProviderReplyBudget {
  name: string;
  limit: number;
  used: number;
  windowSeconds: number;
}

// analytics: one post's metrics as the platform reported them
export interface ProviderPostMetrics {
  providerPostId: string;
  /** normalized metric names; null when the platform did not report the metric (never 0) */
  metrics: Record<string, number | null>;
  /** the platform's own metric names that were asked for */
  metricNames: string[];
  /** the platform API (and version) the numbers came from, e.g. "x/2" */
  apiVersion: string;
}

/** A comment to write: on the post, or as a reply to one of its comments. */
export interface PostCommentInput {
  providerPostId: string;
  text: string;
  replyToCommentId?: string;
}

export interface SocialProvider {
  readonly platform: Platform;
  readonly capability: ProviderCapability;
  readonly rules: ProviderValidationRules;
  readonly oauth: ProviderOAuth;

  /** accounts the token can act as (pages for Facebook, the user for most others) */
  lookupAccounts(input: { tokens: OAuthTokens }): Promise<ProviderAccount[]>;

  publish(ctx: ProviderCallContext, request: PublishRequest): Promise<PublishResult>;
  pollPublish(ctx: ProviderCallContext, pollToken: string): Promise<PublishResult>;
  /** public URL of a published post, when the publish response did not carry one */
  fetchPermalink(ctx: ProviderCallContext, providerPostId: string): Promise<string | null>;
  /**
   * Crash reconciliation: the account's post a publish of this text made within the window, found in
   * the platform's list of the account's recent posts; absent where the platform offers no such list.
   */
  findRecentPost?(ctx: ProviderCallContext, input: FindRecentPostInput): Promise<RecentPostLookup>;

  /** firstComment plug and comment replies; throws ProviderError(platform_rejected) where unsupported */
  postComment(ctx: ProviderCallContext, input: PostCommentInput): Promise<{ providerCommentId: string }>;
  /** the post's comments (replies included, flat, each with its parent), following the platform's pagination up to limit */
  listComments(ctx: ProviderCallContext, input: { providerPostId: string; limit: number; since?: string }): Promise<ProviderComment[]>;
  /** the platform's own count of the account's reply budget (Threads: 1,000 replies in a moving 24 h); absent where it has none */
  replyBudget?(ctx: ProviderCallContext): Promise<ProviderReplyBudget>;
  /** hides (or shows again) a comment on the account's post; absent where the platform has no such call */
  hideComment?(ctx: ProviderCallContext, input: { providerCommentId: string; providerPostId: string; hidden: boolean }): Promise<void>;

  fetchPostAnalytics(ctx: ProviderCallContext, input: { providerPostId: string }): Promise<ProviderPostAnalytics>;
  /** analytics: the post's metrics with unreported ones as null; present on platforms with analytics sync */
  fetchPostMetrics?(ctx: ProviderCallContext, input: { providerPostId: string }): Promise<ProviderPostMetrics>;

  /** runs one of capability.toolNames; results are plain JSON objects */
  runTool(ctx: ProviderCallContext, toolName: ProviderToolName, input: Record<string, unknown>): Promise<Array<Record<string, unknown>>>;
}
