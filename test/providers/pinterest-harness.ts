import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPinterestProvider } from '../../src/providers/pinterest/pinterest.provider.js';
import type { ProviderCallContext, PublishMediaItem, PublishRequest, SocialProvider } from '../../src/providers/provider.js';
import { type RunningPinterestSimulator, startPinterestSimulator } from '../../src/sandbox/simulators/pinterest.simulator.js';
import { ctxFor, streamedItem } from '../support/simulators.js';

export const REDIRECT = 'http://127.0.0.1:9/oauth/callback/pinterest';
/** a 1x1 PNG */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

export function videoItem(bytes = randomBytes(3000)): PublishMediaItem {
  return streamedItem({ kind: 'video', mimeType: 'video/mp4', url: 'http://127.0.0.1:9/unused.mp4' }, bytes, 1200);
}

/** Awaits the promise and checks it failed with a ProviderError of this category (and code). */
export { rejectsWith } from '../support/provider-errors.js';
export { tokensOf } from '../support/simulators.js';

export interface PinterestHarness {
  sim: RunningPinterestSimulator;
  pin: SocialProvider;
  /** origin of the loopback image host (/pin.png is a PNG, /text is not an image, anything else 404) */
  imageBase: string;
  imageHits(): number;
  provider(overrides?: { timeoutMs?: number; apiBaseUrl?: string; clientSecret?: string }): SocialProvider;
  image(path?: string, altText?: string): PublishMediaItem;
  /** resets failures and processing, and answers a context with a fresh user token */
  freshContext(): ProviderCallContext;
  firstBoardId(): string;
  request(media: PublishMediaItem[], settings?: Record<string, unknown>, text?: string): PublishRequest;
  close(): Promise<void>;
}

export async function startPinterestHarness(): Promise<PinterestHarness> {
  let hits = 0;
  const images: Server = createServer((req, res) => {
    hits += 1;
    if (req.url === '/pin.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else if (req.url === '/slow.png') setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG), 300);
    else if (req.url === '/text') res.writeHead(200, { 'content-type': 'text/plain' }).end('not an image');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  const imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  const sim = await startPinterestSimulator();
  sim.state.client = { id: 'pin-app', secret: 'pin-secret' };
  const provider = (overrides: { timeoutMs?: number; apiBaseUrl?: string; clientSecret?: string } = {}) =>
    createPinterestProvider({
      clientId: 'pin-app',
      clientSecret: 'pin-secret',
      redirectUri: REDIRECT,
      ...sim.baseUrls,
      // the simulator compiles an operation's contract check on its first request
      timeoutMs: 5000,
      ...overrides,
    });
  const firstBoardId = () => sim.state.boardsOf(sim.state.defaultUser.id)[0]?.id ?? '';
  return {
    sim,
    pin: provider(),
    imageBase,
    imageHits: () => hits,
    provider,
    image: (path = '/pin.png', altText?: string) => ({
      kind: 'image',
      mimeType: 'image/png',
      bytes: PNG.length,
      url: `${imageBase}${path}`,
      altText,
      async open() {
        return (async function* () {
          yield PNG;
        })();
      },
    }),
    freshContext() {
      sim.failures.clear();
      sim.state.mediaProcessingReads = 1;
      const { accessToken } = sim.state.issueTokens();
      return ctxFor(accessToken, sim.state.defaultUser.id);
    },
    firstBoardId,
    request: (media, settings = {}, text = 'Pin description') => ({
      text,
      media,
      settings: {
        boardId: firstBoardId(),
        title: 'Pin title',
        link: 'https://example.com/landing',
        ...settings,
      },
      idempotencyKey: 'tgt_1',
    }),
    async close() {
      await sim.close();
      await new Promise((resolve) => images.close(resolve));
    },
  };
}
