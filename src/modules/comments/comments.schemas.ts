/** Social comment shapes of the spec ("Social comments") plus the documented extra fields. */
import { type Static, Type } from '@sinclair/typebox';
import { ListOf, Nullable, PaginationQuery, Timestamp } from '../../http/shared-schemas.js';
import { PLATFORMS } from '../../providers/provider.js';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
export const COMMENT_ID_PREFIX = 'sc';
export const REPLY_ID_PREFIX = 'scr';

export const COMMENT_PLATFORMS = ['facebook_page', 'instagram_business', 'instagram_standalone', 'threads', 'x'] as const;
export type CommentPlatform = (typeof COMMENT_PLATFORMS)[number];
const COMMENT_STATUSES = ['needs_reply', 'replied', 'drafted'] as const;
const REPLY_STATUSES = ['none', 'replied', 'drafted', 'failed', 'needs_reconciliation'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];
export type ReplyStatus = (typeof REPLY_STATUSES)[number];
const REPLY_TONES = ['helpful', 'friendly', 'concise', 'premium', 'supportive'] as const;

const lit = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

const Id = Type.String({ minLength: 1, maxLength: 64 });

const CommentCapabilities = Type.Object(
  {
    canReply: Type.Boolean(),
    canHide: Type.Boolean(),
    canDelete: Type.Boolean(),
  },
  { additionalProperties: false, description: 'What the platform lets the channel do with this comment.' },
);

export const SocialComment = Type.Object(
  {
    socialCommentId: Type.String({ description: `${COMMENT_ID_PREFIX}_<ULID>` }),
    organizationId: Type.String(),
    brandId: Nullable(Type.String()),
    channelAccountId: Type.String(),
    platform: lit(PLATFORMS),
    postTargetId: Nullable(Type.String()),
    providerPostId: Type.String(),
    providerCommentId: Type.String(),
    parentProviderCommentId: Nullable(Type.String({ description: 'the comment this one answers (threads); null for a top-level comment' })),
    body: Type.String(),
    authorName: Nullable(Type.String()),
    authorHandle: Nullable(Type.String()),
    permalinkUrl: Nullable(Type.String()),
    providerCreatedAt: Nullable(Timestamp()),
    status: lit(COMMENT_STATUSES),
    replyStatus: lit(REPLY_STATUSES),
    metrics: Type.Record(Type.String(), Type.Unknown(), { description: 'platform counters (likes, replies) as last synced' }),
    capabilities: CommentCapabilities,
    isOwn: Type.Boolean({ description: 'written by the channel itself (a reply of ours or the account owner)' }),
    hidden: Type.Boolean({ description: 'hidden on the platform through the hide route' }),
    draft: Nullable(
      Type.Object(
        { reply: Type.String(), createdAt: Timestamp() },
        { additionalProperties: false, description: 'the stored reply draft (never sent by itself)' },
      ),
    ),
    lastSyncedAt: Timestamp(),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'SocialComment', additionalProperties: false },
);
export type SocialCommentView = Static<typeof SocialComment>;

export const SocialCommentSyncRequest = Type.Object(
  {
    organizationId: Id,
    brandId: Id,
    providerPostId: Type.String({ minLength: 1, maxLength: 200 }),
    channelAccountId: Id,
    platform: lit(COMMENT_PLATFORMS),
    postTargetId: Type.Optional(Nullable(Id)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    since: Type.Optional(Timestamp()),
    dryRun: Type.Optional(Type.Boolean({ default: true })),
  },
  { $id: 'SocialCommentSyncRequest', additionalProperties: false },
);
export type SyncRequest = Static<typeof SocialCommentSyncRequest>;

const SocialCommentSyncItem = Type.Object(
  {
    change: lit(['create', 'update', 'unchanged'] as const),
    socialCommentId: Nullable(Type.String({ description: 'null in a dry run for a comment not stored yet' })),
    providerCommentId: Type.String(),
    parentProviderCommentId: Nullable(Type.String()),
    body: Type.String(),
    authorName: Nullable(Type.String()),
    authorHandle: Nullable(Type.String()),
    providerCreatedAt: Nullable(Timestamp()),
    isOwn: Type.Boolean(),
  },
  { $id: 'SocialCommentSyncItem', additionalProperties: false },
);

export const SocialCommentSyncResponse = Type.Object(
  {
    mode: lit(['dry_run', 'synced'] as const),
    fetched: Type.Integer(),
    created: Type.Integer(),
    updated: Type.Integer(),
    comments: Type.Array(Type.Ref('SocialCommentSyncItem')),
  },
  { $id: 'SocialCommentSyncResponse', additionalProperties: false },
);
export type SyncResponse = Static<typeof SocialCommentSyncResponse>;

export const SocialCommentProfileSyncRequest = Type.Object(
  {
    organizationId: Id,
    brandId: Id,
    profileId: Type.Optional(Id),
    targetLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, default: 8 })),
    commentsPerPost: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    dryRun: Type.Optional(Type.Boolean({ default: true })),
  },
  { $id: 'SocialCommentProfileSyncRequest', additionalProperties: false },
);
export type ProfileSyncRequest = Static<typeof SocialCommentProfileSyncRequest>;

export const SocialCommentProfileSyncResponse = Type.Object(
  {
    mode: lit(['dry_run', 'synced'] as const),
    targets: Type.Array(
      Type.Object(
        {
          postTargetId: Type.String(),
          channelAccountId: Type.String(),
          platform: Type.String(),
          providerPostId: Type.String(),
          ok: Type.Boolean(),
          fetched: Type.Integer(),
          created: Type.Integer(),
          updated: Type.Integer(),
          error: Nullable(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false })),
        },
        { additionalProperties: false },
      ),
    ),
    fetched: Type.Integer(),
    created: Type.Integer(),
    updated: Type.Integer(),
  },
  { $id: 'SocialCommentProfileSyncResponse', additionalProperties: false },
);
export type ProfileSyncResponse = Static<typeof SocialCommentProfileSyncResponse>;

export const SocialCommentListQuery = Type.Object(
  {
    brandId: Type.Optional(Id),
    channelAccountId: Type.Optional(Id),
    postTargetId: Type.Optional(Id),
    providerPostId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    status: Type.Optional(lit(COMMENT_STATUSES)),
    replyStatus: Type.Optional(lit(REPLY_STATUSES)),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof SocialCommentListQuery>;
export const SocialCommentList = ListOf(Type.Ref('SocialComment'), undefined, 'SocialCommentList');

export const CommentParams = Type.Object(
  { socialCommentId: Type.String({ pattern: `^${COMMENT_ID_PREFIX}_${ULID}$`, description: `${COMMENT_ID_PREFIX}_<ULID>` }) },
  { additionalProperties: false },
);

export const SocialCommentReplyRequest = Type.Object(
  {
    organizationId: Id,
    brandId: Id,
    body: Type.String({ minLength: 1, maxLength: 10_000 }),
    dryRun: Type.Optional(Type.Boolean({ default: true })),
  },
  { $id: 'SocialCommentReplyRequest', additionalProperties: false },
);
export type ReplyRequest = Static<typeof SocialCommentReplyRequest>;
/** checked in the handler, so that a bad query answers invalid_public_social_comment_reply_query */
export const SocialCommentReplyQuery = Type.Object(
  { channelAccountId: Type.Optional(Type.String({ description: 'guard: the comment must belong to this channel account (else 404)' })) },
  { additionalProperties: true },
);

export const SocialCommentReplyResponse = Type.Object(
  {
    mode: lit(['dry_run', 'replied', 'needs_reconciliation', 'failed'] as const),
    reply: Type.Object(
      {
        replyId: Nullable(Type.String()),
        body: Type.String(),
        providerCommentId: Nullable(Type.String()),
        state: lit(['would_post', 'posted', 'failed', 'needs_reconciliation'] as const),
        error: Nullable(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false })),
      },
      { additionalProperties: false },
    ),
    comment: Type.Ref('SocialComment'),
    budget: Nullable(
      Type.Object(
        { name: Type.String(), limit: Type.Integer(), remaining: Nullable(Type.Integer()), window: Type.String() },
        { additionalProperties: false, description: "the platform's reply budget where it is known (Threads: 1,000 replies a day)" },
      ),
    ),
  },
  { $id: 'SocialCommentReplyResponse', additionalProperties: false },
);
export type ReplyResponse = Static<typeof SocialCommentReplyResponse>;

export const SocialCommentHideRequest = Type.Object(
  { hidden: Type.Boolean({ description: 'true hides the comment on the platform, false shows it again' }) },
  { $id: 'SocialCommentHideRequest', additionalProperties: false },
);

export const CommentReplyDraftRequest = Type.Object(
  {
    platform: lit(PLATFORMS),
    commentText: Type.String({ minLength: 1, maxLength: 10_000 }),
    dryRun: Type.Optional(Type.Boolean({ default: true })),
    brandId: Type.Optional(Type.String({ maxLength: 64 })),
    brandName: Type.Optional(Type.String({ maxLength: 200 })),
    productName: Type.Optional(Type.String({ maxLength: 200 })),
    productUrl: Type.Optional(Type.String({ maxLength: 2048 })),
    postText: Type.Optional(Type.String({ maxLength: 10_000 })),
    socialContext: Type.Optional(Type.String({ maxLength: 4000 })),
    tone: Type.Optional(lit(REPLY_TONES)),
    maxCharacters: Type.Optional(Type.Integer({ minimum: 80, maximum: 2200 })),
    socialCommentId: Type.Optional(
      Type.String({ pattern: `^${COMMENT_ID_PREFIX}_${ULID}$`, description: 'store the draft on this comment (status drafted)' }),
    ),
  },
  { $id: 'CommentReplyDraftRequest', additionalProperties: false },
);
export type DraftRequest = Static<typeof CommentReplyDraftRequest>;

const Draft = Type.Object(
  {
    reply: Type.String(),
    prompt: Type.Object({ system: Type.String(), user: Type.String() }, { additionalProperties: false }),
    constraints: Type.Object(
      { platform: Type.String(), tone: Type.String(), maxCharacters: Type.Integer() },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export const CommentReplyDraftResponse = Type.Union(
  [
    Type.Object({ mode: Type.Literal('dry_run'), draft: Draft, requiredEnv: Type.Array(Type.String()) }, { additionalProperties: false }),
    Type.Object(
      { mode: Type.Literal('drafted'), draft: Draft, socialCommentId: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
  ],
  { $id: 'CommentReplyDraftResponse' },
);
export type DraftResponse = Static<typeof CommentReplyDraftResponse>;

export const COMMENT_SCHEMAS = [SocialComment, SocialCommentSyncItem];
