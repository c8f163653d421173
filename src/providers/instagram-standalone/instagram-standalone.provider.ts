/** instagram_standalone adapter: Instagram API with Instagram Login behind the SocialProvider port. */

import { instagramContentMethods } from '../meta-shared/instagram-port.js';
import { instagramLoginOAuth } from '../meta-shared/meta-oauth.js';
import { metaToolRunner } from '../meta-shared/tool-support.js';
import type { ProviderAppConfig, SocialProvider } from '../provider.js';
import { instagramStandaloneClient } from './instagram-standalone.client.js';
import { INSTAGRAM_STANDALONE_CAPABILITY, INSTAGRAM_STANDALONE_RULES, INSTAGRAM_STANDALONE_SCOPES } from './instagram-standalone.rules.js';

export function createInstagramStandaloneProvider(config: ProviderAppConfig): SocialProvider {
  const platform = 'instagram_standalone' as const;
  const client = instagramStandaloneClient(config);
  return {
    platform,
    capability: INSTAGRAM_STANDALONE_CAPABILITY,
    rules: INSTAGRAM_STANDALONE_RULES,
    oauth: instagramLoginOAuth(config, INSTAGRAM_STANDALONE_SCOPES),
    lookupAccounts: ({ tokens }) => client.me(tokens.accessToken),
    ...instagramContentMethods(client.content),
    runTool: metaToolRunner(platform, (ctx) => client.profile(ctx)),
  };
}
