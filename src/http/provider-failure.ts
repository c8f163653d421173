/** The API's answer to a failed platform call (the provider tools route, comments). */
import { AppError } from '../platform/errors.js';
import type { ProviderError } from '../providers/provider.js';

/** Maps a platform failure to an answer without the platform's raw body (it may echo request data). */
export function providerFailure(err: ProviderError): AppError {
  const details = {
    platform: err.platform,
    providerCategory: err.category,
    providerCode: err.providerCode,
  };
  switch (err.category) {
    case 'auth_expired':
      return new AppError('channel_account_not_connected', {
        message: `The ${err.platform} token was refused; reconnect the channel.`,
        details,
      });
    case 'rate_limited': {
      const retry = String(err.retryAfterSeconds ?? 60);
      return new AppError('provider_rate_limited', {
        message: `The ${err.platform} rate limit was reached; retry in ${retry} s.`,
        details,
        headers: { 'retry-after': retry },
      });
    }
    case 'user_content':
      return new AppError('invalid_public_provider_tool_request', {
        message: `${err.platform} refused the tool input: ${err.message}`,
        details,
        fields: [{ path: ['input'], source: 'body' }],
      });
    default:
      return new AppError('provider_request_failed', {
        message: `The ${err.platform} call failed (${err.category}).`,
        details,
      });
  }
}
