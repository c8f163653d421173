/**
 * Wraps a SocialProvider so every call to the platform is counted by platform, operation and error
 * class (the ProviderError category, `unexpected` for anything else, `none` on success) and timed.
 */
import type { ProviderCallObserver } from '../platform/metrics/metrics.js';
import { ProviderError, type SocialProvider } from './provider.js';

const CALLS = [
  'lookupAccounts',
  'publish',
  'pollPublish',
  'fetchPermalink',
  'postComment',
  'listComments',
  'fetchPostAnalytics',
  'runTool',
] as const;
const OAUTH_CALLS = ['exchangeCode', 'refresh', 'revoke'] as const;

function timed<A extends unknown[], R>(
  observer: ProviderCallObserver,
  platform: string,
  operation: string,
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const start = process.hrtime.bigint();
    const done = (errorClass: string) =>
      observer.providerCall(platform, operation, errorClass, Number(process.hrtime.bigint() - start) / 1e9);
    try {
      const result = await fn(...args);
      done('none');
      return result;
    } catch (err) {
      done(err instanceof ProviderError ? err.category : 'unexpected');
      throw err;
    }
  };
}

export function observeProvider(provider: SocialProvider, observer: ProviderCallObserver): SocialProvider {
  const wrapped: Record<string, unknown> = Object.create(provider);
  for (const name of CALLS) {
    const fn = provider[name] as (...args: unknown[]) => Promise<unknown>;
    wrapped[name] = timed(observer, provider.platform, name, fn.bind(provider));
  }
  const oauth: Record<string, unknown> = Object.create(provider.oauth);
  for (const name of OAUTH_CALLS) {
    const fn = provider.oauth[name] as (...args: unknown[]) => Promise<unknown>;
    oauth[name] = timed(observer, provider.platform, `oauth.${name}`, fn.bind(provider.oauth));
  }
  // analytics: the optional metrics read
  if (provider.fetchPostMetrics)
    wrapped.fetchPostMetrics = timed(observer, provider.platform, 'fetchPostMetrics', provider.fetchPostMetrics.bind(provider));
  // authorizationUrl and the capability flags are read through the prototype chain
  wrapped.oauth = oauth;
  return wrapped as unknown as SocialProvider;
}
