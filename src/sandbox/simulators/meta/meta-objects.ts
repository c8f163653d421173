/**
 * The objects of the Meta simulator's world (tokens, codes, users, Pages, accounts, containers, posts,
 * comments and their counters); meta-state.ts keeps them and answers questions about them.
 */
export type Family = 'facebook' | 'instagram' | 'threads';
export type TokenKind = 'user' | 'page' | 'ig_user' | 'threads_user';

export interface SimToken {
  token: string;
  family: Family;
  kind: TokenKind;
  /** FB user id, page id, IG user id or Threads user id */
  subjectId: string;
  /** the FB user behind a page token */
  userId: string | null;
  scopes: string[];
  expiresAt: number | null;
  longLived: boolean;
}

export interface SimCode {
  family: Family;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  subjectId: string;
  used: boolean;
  expiresAt: number;
}

export interface SimStats {
  views: number;
  reach: number;
  likes: number;
  shares: number;
  saved: number;
  clicks: number;
  reposts: number;
  quotes: number;
}

export type SimObject =
  | { kind: 'fb_user'; id: string; name: string; pageIds: string[] }
  | {
      kind: 'page';
      id: string;
      name: string;
      username: string;
      category: string;
      about: string;
      fanCount: number;
      igId: string | null;
      ownerId: string | null;
    }
  | {
      kind: 'ig_user';
      id: string;
      username: string;
      name: string;
      biography: string;
      followers: number;
      follows: number;
      host: 'facebook' | 'instagram';
    }
  | {
      kind: 'threads_user';
      id: string;
      username: string;
      name: string;
      biography: string;
      followers: number;
      verified: boolean;
    }
  | SimContainer
  | SimPost
  | SimComment
  | {
      kind: 'fb_photo';
      id: string;
      pageId: string;
      url: string;
      published: boolean;
      postId: string | null;
      altText: string | null;
    };

export interface SimContainer {
  kind: 'container';
  id: string;
  family: Family;
  ownerId: string;
  mediaType: string;
  text: string;
  children: string[];
  replyToId: string | null;
  /** alt_text of an image (or Threads video) container */
  altText: string | null;
  /** IN_PROGRESS until readyAt, unless failed or published */
  state: 'IN_PROGRESS' | 'ERROR' | 'PUBLISHED';
  readyAt: number | null;
  error: string | null;
  createdAt: number;
}

export interface SimPost {
  kind: 'post';
  id: string;
  platform: 'facebook_page' | 'instagram_business' | 'instagram_standalone' | 'threads';
  ownerId: string;
  text: string;
  mediaCount: number;
  mediaType: string;
  permalink: string;
  createdAt: number;
  replyToId: string | null;
  /** alt texts of the post's media, as received */
  altTexts?: string[];
  /** Facebook videos: processing until readyAt, error when the file could not be fetched */
  videoState: 'processing' | 'ready' | 'error' | null;
  readyAt: number | null;
  stats: SimStats;
}

export interface SimComment {
  kind: 'comment';
  id: string;
  postId: string;
  parentId: string | null;
  text: string;
  authorId: string;
  authorName: string;
  createdAt: number;
}

export function emptyStats(): SimStats {
  return {
    views: 0,
    reach: 0,
    likes: 0,
    shares: 0,
    saved: 0,
    clicks: 0,
    reposts: 0,
    quotes: 0,
  };
}
