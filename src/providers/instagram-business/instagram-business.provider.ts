/** instagram_business adapter: Instagram API with Facebook Login behind the SocialProvider port. */

import { instagramContentMethods } from '../meta-shared/instagram-port.js';
import { facebookLoginOAuth } from '../meta-shared/meta-oauth.js';
import { metaToolRunner } from '../meta-shared/tool-support.js';
import type { ProviderAppConfig, SocialProvider } from '../provider.js';
import { instagramBusinessClient } from './instagram-business.client.js';
import { INSTAGRAM_BUSINESS_CAPABILITY, INSTAGRAM_BUSINESS_RULES, INSTAGRAM_BUSINESS_SCOPES } from './instagram-business.rules.js';

export function createInstagramBusinessProvider(config: ProviderAppConfig): SocialProvider {
  const platform = 'instagram_business' as const;
  const client = instagramBusinessClient(config);
  return {
    platform,
    capability: INSTAGRAM_BUSINESS_CAPABILITY,
    rules: INSTAGRAM_BUSINESS_RULES,
    oauth: facebookLoginOAuth(platform, config, INSTAGRAM_BUSINESS_SCOPES),
    lookupAccounts: ({ tokens }) => client.linkedAccounts(tokens.accessToken),
    ...instagramContentMethods(client.content),
    runTool: metaToolRunner(platform, (ctx) => client.profile(ctx), {
      inputs: ['query', 'username'],
      search: (ctx, username) => client.discover(ctx, username),
    }),
  };
}
