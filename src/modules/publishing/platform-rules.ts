/**
 * Capability data of every platform, read from the adapters' rules files: the same data the
 * capabilities route serves, so a plan that validates here is one the adapters accept.
 */
import { FACEBOOK_PAGE_CAPABILITY, FACEBOOK_PAGE_RULES } from '../../providers/facebook-page/facebook-page.rules.js';
import { INSTAGRAM_BUSINESS_CAPABILITY, INSTAGRAM_BUSINESS_RULES } from '../../providers/instagram-business/instagram-business.rules.js';
import {
  INSTAGRAM_STANDALONE_CAPABILITY,
  INSTAGRAM_STANDALONE_RULES,
} from '../../providers/instagram-standalone/instagram-standalone.rules.js';
import { pinterestCapability, pinterestValidationRules } from '../../providers/pinterest/pinterest.rules.js';
import type { Platform, ProviderCapability, ProviderValidationRules } from '../../providers/provider.js';
import { THREADS_CAPABILITY, THREADS_RULES } from '../../providers/threads/threads.rules.js';
import { TIKTOK_CAPABILITY, TIKTOK_VALIDATION_RULES } from '../../providers/tiktok/tiktok.rules.js';
import { X_CAPABILITY, X_VALIDATION_RULES } from '../../providers/x/x.rules.js';
import { youtubeCapability, youtubeValidationRules } from '../../providers/youtube/youtube.rules.js';

export interface PlatformRules {
  capability: ProviderCapability;
  rules: ProviderValidationRules;
}

export const PLATFORM_RULES: Record<Platform, PlatformRules> = {
  facebook_page: {
    capability: FACEBOOK_PAGE_CAPABILITY,
    rules: FACEBOOK_PAGE_RULES,
  },
  instagram_business: {
    capability: INSTAGRAM_BUSINESS_CAPABILITY,
    rules: INSTAGRAM_BUSINESS_RULES,
  },
  instagram_standalone: {
    capability: INSTAGRAM_STANDALONE_CAPABILITY,
    rules: INSTAGRAM_STANDALONE_RULES,
  },
  threads: { capability: THREADS_CAPABILITY, rules: THREADS_RULES },
  youtube: { capability: youtubeCapability, rules: youtubeValidationRules },
  pinterest: {
    capability: pinterestCapability,
    rules: pinterestValidationRules,
  },
  tiktok: { capability: TIKTOK_CAPABILITY, rules: TIKTOK_VALIDATION_RULES },
  x: { capability: X_CAPABILITY, rules: X_VALIDATION_RULES },
};
