/**
 * Crash reconciliation's lookup: after a worker died mid-publish, the account's recent posts (listed
 * through the platform's official list endpoint) tell whether the post landed. A post matches when its
 * text equals the request's (whitespace collapsed, links removed: X answers t.co links, others may
 * expand them) and it was created within the window of the attempt, and no other target already
 * holds it. One match: published; none in a listing that reached back past the window: not published;
 * several, or a listing cut short: unknown.
 */

export interface FindRecentPostInput {
  text: string;
  /** the attempt's window: the claim time and the end of its lease */
  since: Date;
  until: Date;
  /** post ids other targets of the channel already hold */
  excludeIds: readonly string[];
  /** the attempt's media kinds and target settings (some kinds of post are not in the listing) */
  mediaKinds: readonly string[];
  settings: Record<string, unknown>;
  /**
   * Listing pages already fetched by this sweep, shared by its lookups: after a crash at volume many
   * targets of one account are looked up at once and would each walk the same newest-first listing.
   * Pages fetched after the sweep began hold every post made before it (the crashed attempts' posts).
   */
  listingPages?: ListingPages;
  /**
   * Ids of the account's posts whose publication we had confirmed before the attempt was claimed. The
   * attempt's post, if it was made, was created after each of them, so a newest-first walk covers the
   * attempt once it passes the newest of them it meets: a bound set by the order of events, not by the
   * platform's clock, which keeps the walk short on an account posting at volume (the time window, with
   * its two minutes of slack for clock skew, would reach back thousands of posts there).
   */
  postedBefore?: ReadonlySet<string>;
}

export type ListingPage = { posts: ListedPost[]; next: string | undefined };
export type ListingPages = Map<string, Promise<ListingPage>>;

export type RecentPostLookup =
  | { status: 'found'; providerPostId: string; url: string | null }
  | { status: 'absent' }
  | { status: 'unknown'; reason: string };

export interface ListedPost {
  id: string;
  text: string;
  /** ms since the epoch; NaN when the platform did not say */
  createdAt: number;
  url: string | null;
}

/** clock skew between us and the platform tolerated at both ends of the window */
export const WINDOW_SLACK_MS = 120_000;
/**
 * list pages walked at most; a listing cut short answers unknown rather than absent. An account that
 * posts at volume needs its whole window walked (4,000 posts at 100 a page); a sweep shares the pages.
 */
const MAX_LIST_PAGES = 40;

function normalizePostText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * `complete`: the listing reached posts older than the window (or the account's first post).
 * `notBefore`: the creation time of a post made before the attempt (`postedBefore`), when the walk met one.
 */
export function matchRecentPost(
  posts: readonly ListedPost[],
  input: FindRecentPostInput,
  complete: boolean,
  notBefore = Number.NEGATIVE_INFINITY,
): RecentPostLookup {
  const from = Math.max(input.since.getTime() - WINDOW_SLACK_MS, notBefore);
  const to = input.until.getTime() + WINDOW_SLACK_MS;
  const wanted = normalizePostText(input.text);
  const excluded = new Set(input.excludeIds);
  // a post listed twice is one post: a listing paged by position repeats an item when posts are
  // made while it is walked (the newest-first list shifts under the cursor)
  const unique = [...new Map(posts.map((p) => [p.id, p])).values()];
  const candidates = unique.filter(
    (p) =>
      !excluded.has(p.id) &&
      normalizePostText(p.text) === wanted &&
      (Number.isNaN(p.createdAt) || (p.createdAt >= from && p.createdAt <= to)),
  );
  if (candidates.length === 1) return { status: 'found', providerPostId: candidates[0]!.id, url: candidates[0]!.url };
  if (candidates.length > 1) return { status: 'unknown', reason: `${candidates.length} posts of the account match the text in the window` };
  return complete ? { status: 'absent' } : { status: 'unknown', reason: 'the listing did not reach back to the attempt' };
}

/**
 * Walks a newest-first listing page by page until a post older than the window, a post older than the
 * newest post known to precede the attempt (`postedBefore`), the last page, or MAX_LIST_PAGES; answers
 * the posts seen, whether the attempt was covered and the creation time of that known post.
 * A listing gives creation times in seconds and orders posts of the same second any way, so the walk
 * goes on past the known post to the first post strictly older than it.
 */
async function walkRecent(
  input: FindRecentPostInput,
  fetchPage: (cursor: string | undefined) => Promise<ListingPage>,
  listing: string | undefined,
): Promise<{ posts: ListedPost[]; complete: boolean; anchorAt?: number }> {
  const oldest = input.since.getTime() - WINDOW_SLACK_MS;
  const shared = listing === undefined ? undefined : input.listingPages;
  const page = (cursor: string | undefined) => {
    if (!shared) return fetchPage(cursor);
    const key = `${listing} ${cursor ?? ''}`;
    let p = shared.get(key);
    if (!p) {
      p = fetchPage(cursor);
      shared.set(key, p);
      // a failed page is not kept: the next lookup asks again
      p.catch(() => shared.delete(key));
    }
    return p;
  };
  const posts: ListedPost[] = [];
  let cursor: string | undefined;
  let anchorAt: number | undefined;
  for (let n = 0; n < MAX_LIST_PAGES; n++) {
    const res = await page(cursor);
    posts.push(...res.posts);
    if (anchorAt === undefined && input.postedBefore?.size) {
      const known = res.posts.find((p) => input.postedBefore!.has(p.id) && Number.isFinite(p.createdAt));
      if (known) anchorAt = known.createdAt;
    }
    const floor = Math.max(oldest, anchorAt ?? Number.NEGATIVE_INFINITY);
    if (res.posts.some((p) => p.createdAt < floor)) return { posts, complete: true, anchorAt };
    if (!res.next || res.posts.length === 0) return { posts, complete: true, anchorAt };
    cursor = res.next;
  }
  return { posts, complete: false, anchorAt };
}

/**
 * Looks up the listing and matches in one call (what an adapter's findRecentPost usually is).
 * `listing` names a listing whose requests do not depend on the input (its URL with the account), so
 * the lookups of one sweep share its pages (`input.listingPages`).
 */
export async function findInListing(
  input: FindRecentPostInput,
  page: (cursor: string | undefined) => Promise<ListingPage>,
  listing?: string,
): Promise<RecentPostLookup> {
  const { posts, complete, anchorAt } = await walkRecent(input, page, listing);
  return matchRecentPost(posts, input, complete, anchorAt);
}
