/**
 * How long a simulator waits for a media URL it fetches as the platform would (Pinterest's image_url,
 * Meta's url/image_url/video_url). The platforms give up after a few seconds; the simulators keep that
 * bound for remote hosts. Media on a loopback host is served by this service itself (sandbox mode, tests),
 * where a slow answer means a loaded machine, not a broken URL: there the bound is generous, so a busy
 * host does not turn into a "broken image" error. A fetch that succeeds takes no longer either way.
 */
export const LOOPBACK_MEDIA_FETCH_TIMEOUT_MS = 60_000;

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** `platformMs` for remote URLs; at least LOOPBACK_MEDIA_FETCH_TIMEOUT_MS for loopback ones. */
export function mediaFetchTimeoutMs(url: string | URL, platformMs: number): number {
  let hostname: string;
  try {
    hostname = (typeof url === 'string' ? new URL(url) : url).hostname;
  } catch {
    return platformMs;
  }
  return isLoopbackHost(hostname) ? Math.max(platformMs, LOOPBACK_MEDIA_FETCH_TIMEOUT_MS) : platformMs;
}
