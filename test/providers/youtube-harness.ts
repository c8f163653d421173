import { randomBytes } from 'node:crypto';
import type { ProviderCallContext, PublishMediaItem, PublishRequest, SocialProvider } from '../../src/providers/provider.js';
import { createYoutubeProvider } from '../../src/providers/youtube/youtube.provider.js';
import { type RunningYoutubeSimulator, startYoutubeSimulator } from '../../src/sandbox/simulators/google.simulator.js';
import { ctxFor, streamedItem } from '../support/simulators.js';

export const REDIRECT = 'http://127.0.0.1:9/oauth/callback/youtube';

function videoItem(bytes = randomBytes(4096)): PublishMediaItem {
  return streamedItem({ kind: 'video', mimeType: 'video/mp4', url: 'http://127.0.0.1:9/unused' }, bytes, 1000);
}

export function publishRequest(settings: Record<string, unknown> = {}, text = 'A description'): PublishRequest {
  return {
    text,
    media: [videoItem()],
    settings: { title: 'Launch video', privacyStatus: 'unlisted', ...settings },
    idempotencyKey: 'tgt_1',
  };
}

/** Awaits the promise and checks it failed with a ProviderError of this category (and code). */
export { rejectsWith } from '../support/provider-errors.js';
export { tokensOf } from '../support/simulators.js';

export interface YoutubeHarness {
  sim: RunningYoutubeSimulator;
  yt: SocialProvider;
  provider(overrides?: { timeoutMs?: number; apiBaseUrl?: string }): SocialProvider;
  /** resets failures, quota and processing, and answers a context with a fresh channel token */
  freshContext(): ProviderCallContext;
}

export async function startYoutubeHarness(): Promise<YoutubeHarness> {
  const sim = await startYoutubeSimulator();
  const provider = (overrides: { timeoutMs?: number; apiBaseUrl?: string } = {}) =>
    createYoutubeProvider({
      clientId: 'yt-client',
      clientSecret: 'yt-secret',
      redirectUri: REDIRECT,
      ...sim.baseUrls,
      timeoutMs: 2000,
      ...overrides,
    });
  return {
    sim,
    yt: provider(),
    provider,
    freshContext() {
      sim.failures.clear();
      sim.state.processingReads = 1;
      sim.state.quotaRemaining = 10_000;
      const { accessToken } = sim.state.issueTokens();
      return ctxFor(accessToken, sim.state.defaultChannel.id);
    },
  };
}
