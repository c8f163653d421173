/**
 * In-memory state of the X simulator: app client, users, PKCE authorization codes, rotating OAuth 2.0
 * tokens, posts (with conversations and public metrics), chunked media uploads, communities, and
 * 15-minute rate windows.
 */
import { randomBytes } from 'node:crypto';
import { type PersistableState, pickFields, restoreFields } from '../../sandbox-store.js';

export interface XSimulatorOptions {
  clientId?: string;
  /** confidential client secret; null makes the simulated app a public client (client_id only) */
  clientSecret?: string | null;
  accessTokenTtlSeconds?: number;
  /** how long a video or GIF stays in processing after its upload is finalized (default 50 ms) */
  mediaProcessingMs?: number;
  /** POST /2/tweets allowed per user per 15 minutes */
  postsPer15Minutes?: number;
  /** users search needs a higher access tier; false answers 403 client-forbidden */
  usersSearchEnabled?: boolean;
}

export interface XSimUser {
  id: string;
  name: string;
  username: string;
  profileImageUrl: string;
  verified: boolean;
}

export interface XSimTweet {
  id: string;
  authorId: string;
  text: string;
  createdAt: string;
  conversationId: string;
  inReplyToId: string | null;
  quoteTweetId: string | null;
  mediaKeys: string[];
  metrics: {
    retweet_count: number;
    reply_count: number;
    like_count: number;
    quote_count: number;
    bookmark_count: number;
    impression_count: number;
  };
}

export interface XSimMedia {
  id: string;
  mediaKey: string;
  ownerId: string;
  mediaType: string;
  category: string;
  totalBytes: number;
  segments: Map<number, number>;
  finalized: boolean;
  readyAt: number;
  failure: { name: string; message: string } | null;
  altText: string | null;
}

export interface XSimCommunity {
  id: string;
  name: string;
  description: string;
  member_count: number;
  access: string;
  created_at: string;
}

let snowflake = 1_860_000_000_000_000_000n;
export const nextId = () => {
  snowflake += BigInt(1 + Math.floor(Math.random() * 4096));
  return snowflake.toString();
};
/** After a restore: new ids continue above every id the saved world holds. */
function advanceIdsPast(ids: Iterable<string>): void {
  for (const id of ids) if (/^\d+$/.test(id) && BigInt(id) > snowflake) snowflake = BigInt(id);
}
const randomToken = (bytes = 24) => randomBytes(bytes).toString('base64url');

const PERSISTED = [
  'users',
  'codes',
  'tokens',
  'refreshTokens',
  'tweets',
  'webhooks',
  'media',
  'hiddenReplies',
  'communities',
  'windows',
] as const;

export class XSimulatorState implements PersistableState {
  readonly clientId: string;
  readonly clientSecret: string | null;
  readonly accessTokenTtlSeconds: number;
  readonly mediaProcessingMs: number;
  postsPer15Minutes: number;
  usersSearchEnabled: boolean;
  /** recent search may answer fewer posts than max_results on a page (with a next_token); null: full pages */
  searchPageLimit: number | null = null;

  readonly users = new Map<string, XSimUser>();
  readonly codes = new Map<
    string,
    {
      userId: string;
      scopes: string[];
      redirectUri: string;
      challenge: string;
      method: string;
      expiresAt: number;
    }
  >();
  readonly tokens = new Map<string, { userId: string; scopes: string[]; expiresAt: number; revoked: boolean }>();
  readonly refreshTokens = new Map<string, { userId: string; scopes: string[]; used: boolean; revoked: boolean }>();
  readonly tweets = new Map<string, XSimTweet>();
  /** Account Activity API: the app's consumer secret (CRC and delivery signatures) and app-only bearer token */
  consumerSecret = 'sandbox-x-consumer-secret';
  appBearerToken = 'sandbox-x-app-bearer-token';
  readonly webhooks = new Map<string, { id: string; url: string; valid: boolean; createdAt: string; subscribers: Set<string> }>();
  readonly media = new Map<string, XSimMedia>();
  /** replies hidden by the author of their conversation (PUT /2/tweets/:id/hidden) */
  readonly hiddenReplies = new Set<string>();
  readonly communities: XSimCommunity[] = [
    {
      id: '1600000000000000001',
      name: 'Sandbox Makers',
      description: 'People who build things',
      member_count: 1200,
      access: 'Public',
      created_at: '2023-01-10T00:00:00.000Z',
    },
    {
      id: '1600000000000000002',
      name: 'Sandbox Marketing',
      description: 'Growth and brand talk',
      member_count: 640,
      access: 'Public',
      created_at: '2023-03-02T00:00:00.000Z',
    },
  ];
  readonly windows = new Map<string, { used: number; resetAt: number }>();
  private mediaFailures: Array<{ name: string; message: string }> = [];

  constructor(opts: XSimulatorOptions = {}) {
    this.clientId = opts.clientId ?? 'sandbox-x-client-id';
    this.clientSecret = opts.clientSecret === undefined ? 'sandbox-x-client-secret' : opts.clientSecret;
    this.accessTokenTtlSeconds = opts.accessTokenTtlSeconds ?? 7200;
    this.mediaProcessingMs = opts.mediaProcessingMs ?? 50;
    this.postsPer15Minutes = opts.postsPer15Minutes ?? 100;
    this.usersSearchEnabled = opts.usersSearchEnabled ?? true;
  }

  snapshot(): Record<string, unknown> {
    return pickFields(this, PERSISTED);
  }

  restore(data: Record<string, unknown>): void {
    restoreFields(this, data, PERSISTED);
    advanceIdsPast([...this.users.keys(), ...this.tweets.keys(), ...this.media.keys()]);
  }

  /** Finds or creates the account a sandbox login approves as (one per handle). */
  user(username = 'sandbox_brand'): XSimUser {
    for (const u of this.users.values()) if (u.username.toLowerCase() === username.toLowerCase()) return u;
    const id = nextId();
    const user: XSimUser = {
      id,
      name: username.replace(/_/g, ' '),
      username,
      profileImageUrl: `https://pbs.twimg.com/profile_images/${id}/sandbox_normal.jpg`,
      verified: false,
    };
    this.users.set(id, user);
    return user;
  }

  issueTokens(userId: string, scopes: string[]): { accessToken: string; refreshToken: string | null } {
    const accessToken = randomToken();
    this.tokens.set(accessToken, {
      userId,
      scopes,
      expiresAt: Date.now() + this.accessTokenTtlSeconds * 1000,
      revoked: false,
    });
    if (!scopes.includes('offline.access')) return { accessToken, refreshToken: null };
    const refreshToken = randomToken();
    this.refreshTokens.set(refreshToken, {
      userId,
      scopes,
      used: false,
      revoked: false,
    });
    return { accessToken, refreshToken };
  }

  expireAccessToken(accessToken: string): void {
    const t = this.tokens.get(accessToken);
    if (t) t.expiresAt = Date.now() - 1;
  }

  createTweet(
    authorId: string,
    text: string,
    opts: {
      inReplyToId?: string | null;
      quoteTweetId?: string | null;
      mediaKeys?: string[];
    } = {},
  ): XSimTweet {
    const id = nextId();
    const parent = opts.inReplyToId ? this.tweets.get(opts.inReplyToId) : undefined;
    const tweet: XSimTweet = {
      id,
      authorId,
      text,
      createdAt: new Date().toISOString(),
      conversationId: parent?.conversationId ?? id,
      inReplyToId: parent?.id ?? null,
      quoteTweetId: opts.quoteTweetId ?? null,
      mediaKeys: opts.mediaKeys ?? [],
      metrics: {
        retweet_count: 0,
        reply_count: 0,
        like_count: 0,
        quote_count: 0,
        bookmark_count: 0,
        impression_count: 0,
      },
    };
    if (parent) parent.metrics.reply_count += 1;
    this.tweets.set(id, tweet);
    return tweet;
  }

  /** Adds a reply from another (fake) account, as the outside world would. */
  seedReply(tweetId: string, reply: { username: string; text: string }): XSimTweet {
    return this.createTweet(this.user(reply.username).id, reply.text, {
      inReplyToId: tweetId,
    });
  }

  /** Makes the next finalized video/GIF fail processing. */
  failNextMediaProcessing(name = 'InvalidMedia', message = 'Unsupported video format'): void {
    this.mediaFailures.push({ name, message });
  }

  takeMediaFailure(): { name: string; message: string } | null {
    return this.mediaFailures.shift() ?? null;
  }

  /** Counts a call in the user's 15-minute window for an endpoint; null when the window is exhausted. */
  consume(endpoint: string, userId: string, limit: number): { limit: number; remaining: number; reset: number } | null {
    const key = `${endpoint}:${userId}`;
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { used: 0, resetAt: now + 15 * 60_000 };
      this.windows.set(key, w);
    }
    const reset = Math.ceil(w.resetAt / 1000);
    if (w.used >= limit) return null;
    w.used += 1;
    return { limit, remaining: limit - w.used, reset };
  }

  windowReset(endpoint: string, userId: string): number {
    const w = this.windows.get(`${endpoint}:${userId}`);
    return Math.ceil((w?.resetAt ?? Date.now() + 900_000) / 1000);
  }
}
