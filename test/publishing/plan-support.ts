/** Pure plan-validation inputs shared by the plan tests: a media item and a one-target plan on one channel. */
import { USABLE_STATES } from '../../src/modules/channels/channel-states.js';
import { type ChannelFacts, type PlanMedia, type PlanTargetInput, validatePlan } from '../../src/modules/publishing/plan-validation.js';

export const MB = 1024 * 1024;

export function planMedia(kind: PlanMedia['kind'], extra: Partial<PlanMedia> = {}, i = 0): PlanMedia {
  return {
    mediaLibraryItemId: null,
    kind,
    url: `https://cdn.example.test/${i}`,
    mimeType: kind === 'video' ? 'video/mp4' : kind === 'gif' ? 'image/gif' : 'image/jpeg',
    bytes: 1000,
    durationSeconds: kind === 'video' ? 30 : null,
    width: 1080,
    height: 1080,
    altText: null,
    metadata: {},
    path: ['media', String(i)],
    ...extra,
  };
}

/** Validates a plan of one target on channel cha_1 (connected, of the target's platform unless told). */
export function validateOneTarget(
  platform: string,
  opts: { text?: string; target?: Partial<PlanTargetInput>; media?: PlanMedia[]; state?: string; channelPlatform?: string } = {},
) {
  const channels = new Map<string, ChannelFacts>([
    [
      'cha_1',
      {
        channelAccountId: 'cha_1',
        platform: opts.channelPlatform ?? platform,
        state: opts.state ?? 'connected',
        usable: (USABLE_STATES as readonly string[]).includes(opts.state ?? 'connected'),
        brandId: null,
        displayName: 'c',
        handle: null,
      },
    ],
  ]);
  return validatePlan({
    brandId: 'brd_1',
    brandExists: true,
    productId: null,
    productExists: false,
    text: opts.text ?? 'hello',
    media: opts.media ?? [],
    targets: [{ platform, channelAccountId: 'cha_1', ...opts.target }],
    channels,
    resolutionIssues: [],
  });
}
