/**
 * In-memory state of the TikTok simulator: app credentials, creators, authorization codes, tokens,
 * publishes moving PROCESSING_UPLOAD -> PUBLISH_COMPLETE, and published videos with metrics.
 */
import { randomBytes } from 'node:crypto';
import { type PersistableState, pickFields, restoreFields } from '../../sandbox-store.js';

export interface TiktokSimulatorOptions {
  clientKey?: string;
  clientSecret?: string;
  /** time a completed upload stays in PROCESSING_UPLOAD before PUBLISH_COMPLETE (default 50 ms) */
  processingDelayMs?: number;
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  /** unaudited API clients may only post SELF_ONLY content */
  unaudited?: boolean;
  /** Direct Post init requests allowed per access token per minute (docs: 6) */
  initRequestsPerMinute?: number;
  /** posts per creator per rolling 24 h before spam_risk_too_many_posts */
  dailyPostCap?: number;
  /** origin used in upload_url when the simulator is reached through a proxy */
  publicOrigin?: string;
}

export interface TiktokSimUser {
  openId: string;
  unionId: string;
  username: string;
  displayName: string;
  avatarUrl: string;
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number;
}

export interface TiktokSimToken {
  openId: string;
  scopes: string[];
  expiresAt: number;
  refreshToken: string;
  revoked: boolean;
}

export interface TiktokSimPublish {
  publishId: string;
  openId: string;
  kind: 'video' | 'photo';
  title: string;
  privacyLevel: string;
  videoSize: number;
  chunkSize: number;
  totalChunkCount: number;
  uploadToken: string;
  receivedBytes: number;
  receivedChunks: number;
  mediaCount: number;
  /** null until the upload completes (photos: at init) */
  completeAt: number | null;
  failReason: string | null;
  videoId: string | null;
}

export interface TiktokSimVideo {
  id: string;
  openId: string;
  title: string;
  privacyLevel: string;
  /** seconds, as the API answers it */
  createTime: number;
  /** ms: the video list's cursor (absent in videos restored from an older sandbox store) */
  createdAtMs?: number;
  viewCount: number;
  likeCount: number;
  commentCount: number;
  shareCount: number;
}

const PUBLIC_OPTIONS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];

export const randomId = (bytes = 12) => randomBytes(bytes).toString('hex');
let idCounter = 7_300_000_000_000_000_000n;
export const numericId = () => {
  idCounter += BigInt(1 + Math.floor(Math.random() * 1000));
  return idCounter.toString();
};

const PERSISTED = ['users', 'codes', 'tokens', 'refreshTokens', 'publishes', 'videos'] as const;

export class TiktokSimulatorState implements PersistableState {
  readonly clientKey: string;
  readonly clientSecret: string;
  readonly processingDelayMs: number;
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  unaudited: boolean;
  readonly initRequestsPerMinute: number;
  dailyPostCap: number;
  readonly publicOrigin: string | null;

  readonly users = new Map<string, TiktokSimUser>();
  readonly codes = new Map<string, { openId: string; scopes: string[]; redirectUri: string; expiresAt: number }>();
  readonly tokens = new Map<string, TiktokSimToken>();
  readonly refreshTokens = new Map<string, { openId: string; scopes: string[]; expiresAt: number; revoked: boolean }>();
  readonly publishes = new Map<string, TiktokSimPublish>();
  readonly videos = new Map<string, TiktokSimVideo>();
  private lastCreatedAtMs = 0;
  readonly initCalls = new Map<string, number[]>();
  /** fail_reason given to the next completed publish, to simulate moderation or format failures */
  private nextFailReasons: string[] = [];

  constructor(opts: TiktokSimulatorOptions = {}) {
    this.clientKey = opts.clientKey ?? 'sandbox-tiktok-client-key';
    this.clientSecret = opts.clientSecret ?? 'sandbox-tiktok-client-secret';
    this.processingDelayMs = opts.processingDelayMs ?? 50;
    this.accessTokenTtlSeconds = opts.accessTokenTtlSeconds ?? 86_400;
    this.refreshTokenTtlSeconds = opts.refreshTokenTtlSeconds ?? 31_536_000;
    this.unaudited = opts.unaudited ?? false;
    this.initRequestsPerMinute = opts.initRequestsPerMinute ?? 6;
    this.dailyPostCap = opts.dailyPostCap ?? 15;
    this.publicOrigin = opts.publicOrigin ?? null;
  }

  snapshot(): Record<string, unknown> {
    return pickFields(this, PERSISTED);
  }

  restore(data: Record<string, unknown>): void {
    restoreFields(this, data, PERSISTED);
    // new video ids continue above the restored ones
    for (const id of this.videos.keys()) if (/^\d+$/.test(id) && BigInt(id) > idCounter) idCounter = BigInt(id);
    for (const v of this.videos.values()) this.lastCreatedAtMs = Math.max(this.lastCreatedAtMs, v.createdAtMs ?? v.createTime * 1000);
  }

  /** Finds or creates the creator a sandbox login approves as (one per handle). */
  user(handle = 'sandbox.creator'): TiktokSimUser {
    for (const u of this.users.values()) if (u.username === handle) return u;
    const openId = `-000${randomId(10)}`;
    const user: TiktokSimUser = {
      openId,
      unionId: `u${randomId(8)}`,
      username: handle,
      displayName: handle.replace(/[._]/g, ' '),
      avatarUrl: `https://p16-sign.tiktokcdn.com/sandbox/${openId}.jpeg`,
      privacyLevelOptions: [...PUBLIC_OPTIONS],
      commentDisabled: false,
      duetDisabled: false,
      stitchDisabled: false,
      maxVideoPostDurationSec: 600,
    };
    this.users.set(openId, user);
    return user;
  }

  issueCode(openId: string, scopes: string[], redirectUri: string): string {
    const code = randomId(16);
    this.codes.set(code, {
      openId,
      scopes,
      redirectUri,
      expiresAt: Date.now() + 5 * 60_000,
    });
    return code;
  }

  issueTokens(openId: string, scopes: string[], refreshToken?: string) {
    const accessToken = `act.${randomId(24)}`;
    const refresh = refreshToken ?? `rft.${randomId(24)}`;
    this.tokens.set(accessToken, {
      openId,
      scopes,
      expiresAt: Date.now() + this.accessTokenTtlSeconds * 1000,
      refreshToken: refresh,
      revoked: false,
    });
    if (!this.refreshTokens.has(refresh)) {
      this.refreshTokens.set(refresh, {
        openId,
        scopes,
        expiresAt: Date.now() + this.refreshTokenTtlSeconds * 1000,
        revoked: false,
      });
    }
    return { accessToken, refreshToken: refresh };
  }

  /** Makes an issued access token expire now (tests of refresh and reconnect). */
  expireAccessToken(accessToken: string): void {
    const t = this.tokens.get(accessToken);
    if (t) t.expiresAt = Date.now() - 1;
  }

  failNextPublish(failReason: string): void {
    this.nextFailReasons.push(failReason);
  }

  /** Called when the last chunk arrives (or a photo init is accepted): the post now exists on TikTok. */
  completeUpload(p: TiktokSimPublish): void {
    p.completeAt = Date.now() + this.processingDelayMs;
    p.failReason = this.nextFailReasons.shift() ?? null;
  }

  /** Status as the status/fetch endpoint reports it, assigning the video id when processing ends. */
  statusOf(p: TiktokSimPublish): string {
    if (p.completeAt === null || Date.now() < p.completeAt) return 'PROCESSING_UPLOAD';
    if (p.failReason) return 'FAILED';
    if (!p.videoId) {
      const id = numericId();
      p.videoId = id;
      // created when processing ended (not when first read); strictly increasing, so the video list's
      // create-time cursor never splits two videos
      const createdAtMs = Math.max(p.completeAt, this.lastCreatedAtMs + 1);
      this.lastCreatedAtMs = createdAtMs;
      this.videos.set(id, {
        id,
        openId: p.openId,
        title: p.title,
        privacyLevel: p.privacyLevel,
        createTime: Math.floor(createdAtMs / 1000),
        createdAtMs,
        viewCount: 0,
        likeCount: 0,
        commentCount: 0,
        shareCount: 0,
      });
    }
    return 'PUBLISH_COMPLETE';
  }

  postsInLastDay(openId: string): number {
    const since = Date.now() - 86_400_000;
    let n = 0;
    for (const p of this.publishes.values()) if (p.openId === openId && p.completeAt !== null && p.completeAt >= since) n += 1;
    return n;
  }

  /** Sliding one-minute window of init calls per token; true when the call is allowed. */
  allowInit(accessToken: string): boolean {
    const now = Date.now();
    const calls = (this.initCalls.get(accessToken) ?? []).filter((t) => t > now - 60_000);
    if (calls.length >= this.initRequestsPerMinute) {
      this.initCalls.set(accessToken, calls);
      return false;
    }
    calls.push(now);
    this.initCalls.set(accessToken, calls);
    return true;
  }
}
