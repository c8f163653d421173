/** Media fetching and post recording shared by the simulator's write routes. */
import { mediaFetchTimeoutMs } from '../../media-fetch-timeout.js';
import { callbackFetch } from '../callback-fetch.js';
import type { RouteContext } from './meta-http.js';
import type { SimPost } from './meta-state.js';

/** The platforms fetch media from the given URL ("we cURL media"); so does the simulator. */
export async function fetchMedia(url: string | undefined): Promise<boolean> {
  if (!url) return false;
  try {
    const res = await callbackFetch(url, { signal: AbortSignal.timeout(mediaFetchTimeoutMs(url, 5_000)) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/** Stores a published post and records it in the ledger, so tests can count posts exactly. */
export function recordPost(ctx: RouteContext, post: SimPost): void {
  ctx.state.put(post);
  ctx.ledger.posts.push({
    platform: post.platform,
    accountId: post.ownerId,
    postId: post.id,
    text: post.text,
    mediaCount: post.mediaCount,
    ...(post.altTexts?.length ? { altTexts: post.altTexts } : {}),
    at: Date.now(),
  });
}
