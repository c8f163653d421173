/**
 * In-memory world of the Meta simulator: seeded users, Pages, Instagram and Threads accounts, issued
 * codes and tokens, media containers, posts and comments. Everything is deterministic except token
 * strings; the clock can be advanced so tests can expire tokens and containers without waiting.
 */
import { randomBytes } from 'node:crypto';
import { type PersistableState, pickFields, restoreFields } from '../../sandbox-store.js';
import type { Family, SimCode, SimComment, SimContainer, SimObject, SimPost, SimToken } from './meta-objects.js';

export type { Family, SimCode, SimComment, SimContainer, SimObject, SimPost, SimToken, TokenKind } from './meta-objects.js';
export { emptyStats } from './meta-objects.js';

const CONTAINER_TTL_MS = 24 * 3600 * 1000;

const PERSISTED = ['objects', 'tokens', 'codes', 'pageTokens', 'seq', 'clockOffsetMs'] as const;

export class MetaSimState implements PersistableState {
  readonly objects = new Map<string, SimObject>();
  private readonly latestPosts = new Map<string, SimPost>();
  private readonly commentsByPost = new Map<string, SimComment[]>();
  readonly tokens = new Map<string, SimToken>();
  readonly codes = new Map<string, SimCode>();
  /** page tokens are stable per page and user, like Graph's */
  readonly pageTokens = new Map<string, string>();
  private seq = 0n;
  private clockOffsetMs = 0;
  /** daily publishing quotas (Instagram 100, Threads 250) */
  publishLimits = { instagram: 100, threads: 250 };
  readonly seed: {
    fbUserId: string;
    pageId: string;
    secondPageId: string;
    otherPageId: string;
    igBusinessId: string;
    otherIgBusinessId: string;
    igStandaloneId: string;
    threadsUserId: string;
    otherThreadsUserId: string;
  };

  constructor(readonly containerDelayMs: number) {
    const fbUserId = this.nextId();
    const igBusinessId = this.nextId();
    const otherIgBusinessId = this.nextId();
    const pageId = this.nextId();
    const secondPageId = this.nextId();
    const otherPageId = this.nextId();
    const igStandaloneId = this.nextId();
    const threadsUserId = this.nextId();
    const otherThreadsUserId = this.nextId();
    this.seed = {
      fbUserId,
      pageId,
      secondPageId,
      otherPageId,
      igBusinessId,
      otherIgBusinessId,
      igStandaloneId,
      threadsUserId,
      otherThreadsUserId,
    };
    this.put({
      kind: 'fb_user',
      id: fbUserId,
      name: 'Sandbox User',
      pageIds: [pageId, secondPageId],
    });
    this.put({
      kind: 'page',
      id: pageId,
      name: 'Sandbox Coffee',
      username: 'sandboxcoffee',
      category: 'Coffee Shop',
      about: 'Sandbox page',
      fanCount: 1200,
      igId: igBusinessId,
      ownerId: fbUserId,
    });
    this.put({
      kind: 'page',
      id: secondPageId,
      name: 'Sandbox Books',
      username: 'sandboxbooks',
      category: 'Bookstore',
      about: 'Second sandbox page',
      fanCount: 87,
      igId: null,
      ownerId: fbUserId,
    });
    this.put({
      kind: 'page',
      id: otherPageId,
      name: 'Other Coffee Roasters',
      username: 'othercoffee',
      category: 'Coffee Shop',
      about: 'Not managed by the sandbox user',
      fanCount: 54000,
      igId: otherIgBusinessId,
      ownerId: null,
    });
    this.put({
      kind: 'ig_user',
      id: igBusinessId,
      username: 'sandbox.coffee',
      name: 'Sandbox Coffee',
      biography: 'Sandbox business account',
      followers: 950,
      follows: 12,
      host: 'facebook',
    });
    this.put({
      kind: 'ig_user',
      id: otherIgBusinessId,
      username: 'other.coffee',
      name: 'Other Coffee Roasters',
      biography: 'Another business',
      followers: 48000,
      follows: 301,
      host: 'facebook',
    });
    this.put({
      kind: 'ig_user',
      id: igStandaloneId,
      username: 'sandbox.studio',
      name: 'Sandbox Studio',
      biography: 'Sandbox creator account',
      followers: 310,
      follows: 45,
      host: 'instagram',
    });
    this.put({
      kind: 'threads_user',
      id: threadsUserId,
      username: 'sandbox.threads',
      name: 'Sandbox Threads',
      biography: 'Sandbox Threads profile',
      followers: 77,
      verified: false,
    });
    this.put({
      kind: 'threads_user',
      id: otherThreadsUserId,
      username: 'other.threads',
      name: 'Other Threads',
      biography: 'Someone else',
      followers: 9100,
      verified: true,
    });
  }

  snapshot(): Record<string, unknown> {
    return pickFields(this, PERSISTED);
  }

  restore(data: Record<string, unknown>): void {
    restoreFields(this, data, PERSISTED);
    // the newest-post index points into `objects`
    this.latestPosts.clear();
    this.commentsByPost.clear();
    for (const o of this.objects.values()) {
      if (o.kind === 'post') this.put(o);
      if (o.kind === 'comment') this.indexComment(o);
    }
  }

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** moves the simulator's clock forward (token expiry, container expiry) */
  advanceClock(ms: number): void {
    this.clockOffsetMs += ms;
  }

  nextId(): string {
    this.seq += 1n;
    return String(17841400000000000n + this.seq);
  }

  put<T extends SimObject>(obj: T): T {
    this.objects.set(obj.id, obj);
    if (obj.kind === 'comment') this.indexComment(obj);
    if (obj.kind === 'post' && !obj.replyToId) {
      // the newest top-level post per owner, for the duplicate-status check without a scan
      const cur = this.latestPosts.get(obj.ownerId);
      if (!cur || cur.id === obj.id || obj.createdAt > cur.createdAt) this.latestPosts.set(obj.ownerId, obj);
    }
    return obj;
  }

  /** The owner's most recent top-level post (the first stored one among equal times). */
  latestPostOf(ownerId: string): SimPost | undefined {
    return this.latestPosts.get(ownerId);
  }

  get(id: string): SimObject | undefined {
    return this.objects.get(id);
  }

  issueCode(code: Omit<SimCode, 'used' | 'expiresAt'>): string {
    const value = `AQ${randomBytes(18).toString('base64url')}`;
    this.codes.set(value, {
      ...code,
      used: false,
      expiresAt: this.now() + 10 * 60 * 1000,
    });
    return value;
  }

  issueToken(t: Omit<SimToken, 'token' | 'expiresAt'> & { ttlSeconds: number | null }): SimToken {
    const prefix = {
      facebook: t.kind === 'page' ? 'EAAP' : 'EAAB',
      instagram: 'IGAA',
      threads: 'THAA',
    }[t.family];
    const token: SimToken = {
      token: `${prefix}${randomBytes(24).toString('base64url')}`,
      family: t.family,
      kind: t.kind,
      subjectId: t.subjectId,
      userId: t.userId,
      scopes: t.scopes,
      longLived: t.longLived,
      expiresAt: t.ttlSeconds === null ? null : this.now() + t.ttlSeconds * 1000,
    };
    this.tokens.set(token.token, token);
    return token;
  }

  /** the stable page token of a page for the user behind `user` */
  pageToken(page: string, user: SimToken): SimToken {
    const key = `${page}:${user.subjectId}`;
    const existing = this.pageTokens.get(key);
    const found = existing ? this.tokens.get(existing) : undefined;
    if (found) return found;
    // a page token from a long-lived user token does not expire
    const issued = this.issueToken({
      family: 'facebook',
      kind: 'page',
      subjectId: page,
      userId: user.subjectId,
      scopes: user.scopes,
      longLived: true,
      ttlSeconds: user.longLived ? null : 3600,
    });
    this.pageTokens.set(key, issued.token);
    return issued;
  }

  revokeUser(userId: string, family: Family): number {
    let n = 0;
    for (const [value, t] of this.tokens) {
      if (t.family === family && (t.subjectId === userId || t.userId === userId)) {
        this.tokens.delete(value);
        n += 1;
      }
    }
    for (const [key, value] of this.pageTokens) if (!this.tokens.has(value)) this.pageTokens.delete(key);
    return n;
  }

  /** live container status as Graph reports it */
  containerStatus(c: SimContainer): 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'PUBLISHED' | 'EXPIRED' {
    if (c.state !== 'IN_PROGRESS') return c.state;
    if (this.now() - c.createdAt > CONTAINER_TTL_MS) return 'EXPIRED';
    return c.readyAt !== null && this.now() >= c.readyAt ? 'FINISHED' : 'IN_PROGRESS';
  }

  postsOf(ownerId: string, sinceMs: number): SimPost[] {
    const out: SimPost[] = [];
    for (const o of this.objects.values())
      if (o.kind === 'post' && o.ownerId === ownerId && o.createdAt >= sinceMs && !o.replyToId) out.push(o);
    return out;
  }

  /** a post's comments without a scan of every object (each post read counts them) */
  private indexComment(c: SimComment): void {
    const list = this.commentsByPost.get(c.postId) ?? [];
    const at = list.findIndex((x) => x.id === c.id);
    if (at >= 0) list[at] = c;
    else list.push(c);
    this.commentsByPost.set(c.postId, list);
  }

  commentsOf(postId: string): SimComment[] {
    const out = [...(this.commentsByPost.get(postId) ?? [])];
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  repliesTo(id: string): SimPost[] {
    const out: SimPost[] = [];
    for (const o of this.objects.values()) if (o.kind === 'post' && o.replyToId === id) out.push(o);
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }
}
