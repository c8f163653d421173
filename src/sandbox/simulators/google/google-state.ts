/**
 * In-memory state of the Google / YouTube simulator: OAuth codes and tokens it issued, channels,
 * upload sessions, videos, comments and the daily quota. Tests read and steer it directly.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type PersistableState, pickFields, restoreFields } from '../../sandbox-store.js';

export interface SimChannel {
  id: string;
  title: string;
  customUrl: string;
  thumbnailUrl: string;
  /** answer 403 forbidden on uploads (channel not permitted to upload) */
  uploadsForbidden?: boolean;
}

export interface SimAccessToken {
  channelId: string;
  scopes: string[];
  expiresAt: number;
  refreshToken: string | null;
  revoked: boolean;
}

export interface SimAuthCode {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  channelId: string;
  offline: boolean;
  codeChallenge: string | null;
  expiresAt: number;
  used: boolean;
}

export interface SimUploadSession {
  channelId: string;
  metadata: {
    snippet: Record<string, unknown>;
    status: Record<string, unknown>;
  };
  expectedLength: number | null;
  contentType: string;
  videoId: string | null;
}

export interface SimVideo {
  channelId: string;
  /** status reads left before processing finishes */
  readsUntilProcessed: number;
  bytes: number;
  resource: {
    kind: 'youtube#video';
    etag: string;
    id: string;
    snippet: Record<string, unknown>;
    status: Record<string, unknown>;
    statistics: Record<string, string>;
    processingDetails: { processingStatus: string };
  };
}

export interface SimComment {
  kind: 'youtube#comment';
  etag: string;
  id: string;
  snippet: Record<string, unknown>;
}

export interface SimThread {
  id: string;
  videoId: string;
  channelId: string;
  top: SimComment;
  replies: SimComment[];
}

/** videoCategories as YouTube lists them for US (18 Short Movies is listed but not assignable). */
export const SIM_VIDEO_CATEGORIES: Array<[string, string, boolean]> = [
  ['1', 'Film & Animation', true],
  ['2', 'Autos & Vehicles', true],
  ['10', 'Music', true],
  ['15', 'Pets & Animals', true],
  ['17', 'Sports', true],
  ['18', 'Short Movies', false],
  ['19', 'Travel & Events', true],
  ['20', 'Gaming', true],
  ['22', 'People & Blogs', true],
  ['23', 'Comedy', true],
  ['24', 'Entertainment', true],
  ['25', 'News & Politics', true],
  ['26', 'Howto & Style', true],
  ['27', 'Education', true],
  ['28', 'Science & Technology', true],
];

export const QUOTA_COST = {
  list: 1,
  insertVideo: 1600,
  insertComment: 50,
} as const;

function rand(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

const PERSISTED = ['channels', 'codes', 'accessTokens', 'refreshTokens', 'uploads', 'videos', 'threads', 'quotaRemaining'] as const;

export class GoogleSimulatorState implements PersistableState {
  channels: SimChannel[] = [
    {
      id: `UC${rand(16).slice(0, 22)}`,
      title: 'Sandbox Channel',
      customUrl: '@sandboxchannel',
      thumbnailUrl: 'https://yt3.ggpht.example/sandbox-channel=s88',
    },
  ];
  readonly codes = new Map<string, SimAuthCode>();
  readonly accessTokens = new Map<string, SimAccessToken>();
  readonly refreshTokens = new Map<string, { channelId: string; scopes: string[]; clientId: string; revoked: boolean }>();
  readonly uploads = new Map<string, SimUploadSession>();
  readonly videos = new Map<string, SimVideo>();
  readonly threads = new Map<string, SimThread>();
  /** daily quota units left for the project (10,000 by default, as on a new Google Cloud project) */
  quotaRemaining = 10_000;
  /** videos.list status reads before a new video reports `processed` (0: processed at once) */
  processingReads = 1;
  /** when set, token requests must carry this client id and secret */
  client: { id: string; secret: string } | null = null;
  accessTokenLifetimeSeconds = 3599;

  snapshot(): Record<string, unknown> {
    return pickFields(this, PERSISTED);
  }

  restore(data: Record<string, unknown>): void {
    restoreFields(this, data, PERSISTED);
  }

  get defaultChannel(): SimChannel {
    const first = this.channels[0];
    if (!first) throw new Error('simulator has no channel');
    return first;
  }

  channel(id: string): SimChannel | undefined {
    return this.channels.find((c) => c.id === id);
  }

  newId(kind: 'code' | 'upload' | 'video' | 'comment'): string {
    if (kind === 'code') return `4/0Ab${rand(24)}`;
    if (kind === 'video') return rand(8).slice(0, 11);
    if (kind === 'comment') return `Ugz${rand(15)}`;
    return `ADPycd${rand(18)}`;
  }

  /** Issues a token pair directly (tests that skip the consent step). */
  issueTokens(channelId = this.defaultChannel.id, scopes: string[] = ALL_SCOPES, clientId = 'sandbox', offline = true) {
    const accessToken = `ya29.sim-${rand(24)}`;
    const refreshToken = offline ? `1//sim-${rand(24)}` : null;
    if (refreshToken)
      this.refreshTokens.set(refreshToken, {
        channelId,
        scopes,
        clientId,
        revoked: false,
      });
    this.accessTokens.set(accessToken, {
      channelId,
      scopes,
      expiresAt: Date.now() + this.accessTokenLifetimeSeconds * 1000,
      refreshToken,
      revoked: false,
    });
    return { accessToken, refreshToken, scopes };
  }

  /** Access token issued from an existing refresh token. */
  refreshAccess(refreshToken: string): string {
    const grant = this.refreshTokens.get(refreshToken);
    if (!grant) throw new Error('unknown refresh token');
    const accessToken = `ya29.sim-${rand(24)}`;
    this.accessTokens.set(accessToken, {
      channelId: grant.channelId,
      scopes: grant.scopes,
      expiresAt: Date.now() + this.accessTokenLifetimeSeconds * 1000,
      refreshToken,
      revoked: false,
    });
    return accessToken;
  }

  /** Makes an access token answer as expired from now on. */
  expireAccessToken(token: string): void {
    const t = this.accessTokens.get(token);
    if (t) t.expiresAt = Date.now() - 1;
  }

  /** Google revokes the whole grant: the refresh token and every access token derived from it. */
  revokeGrant(token: string): boolean {
    const access = this.accessTokens.get(token);
    const refreshToken = access ? access.refreshToken : this.refreshTokens.has(token) ? token : null;
    if (!access && !refreshToken) return false;
    if (access) access.revoked = true;
    if (refreshToken) {
      const grant = this.refreshTokens.get(refreshToken);
      if (grant) grant.revoked = true;
      for (const t of this.accessTokens.values()) if (t.refreshToken === refreshToken) t.revoked = true;
    }
    return true;
  }

  validAccessToken(token: string): SimAccessToken | null {
    const t = this.accessTokens.get(token);
    if (!t || t.revoked || t.expiresAt <= Date.now()) return null;
    return t;
  }

  /** Adds a comment from someone else (tests of listComments). */
  addAudienceComment(videoId: string, text: string, author = 'Viewer'): string {
    const video = this.videos.get(videoId);
    if (!video) throw new Error(`no video ${videoId}`);
    const comment = makeComment(this.newId('comment'), {
      videoId,
      text,
      author,
      authorChannelId: `UC${rand(16).slice(0, 22)}`,
    });
    this.threads.set(comment.id, {
      id: comment.id,
      videoId,
      channelId: video.channelId,
      top: comment,
      replies: [],
    });
    return comment.id;
  }
}

const ALL_SCOPES = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.readonly',
  'https://www.googleapis.com/auth/youtube.force-ssl',
];

export function makeComment(
  id: string,
  input: {
    videoId: string;
    text: string;
    author: string;
    authorChannelId: string;
    parentId?: string;
  },
): SimComment {
  const now = new Date().toISOString();
  const snippet: Record<string, unknown> = {
    channelId: input.authorChannelId,
    videoId: input.videoId,
    textDisplay: input.text,
    textOriginal: input.text,
    authorDisplayName: input.author,
    authorChannelUrl: `http://www.youtube.com/channel/${input.authorChannelId}`,
    authorChannelId: { value: input.authorChannelId },
    canRate: true,
    viewerRating: 'none',
    likeCount: 0,
    publishedAt: now,
    updatedAt: now,
  };
  if (input.parentId) snippet.parentId = input.parentId;
  return { kind: 'youtube#comment', etag: etag(id), id, snippet };
}

export function etag(seed: string): string {
  return createHash('sha1').update(seed).digest('base64url').slice(0, 27);
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
