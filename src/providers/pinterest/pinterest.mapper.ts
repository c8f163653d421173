/**
 * Translations between Pinterest answers and the port's shapes: token answers, the Pin fields of a
 * post, the opaque poll token of a video Pin waiting for its upload to be processed, and permalinks.
 */
import { type OAuthTokens, ProviderError, type PublishRequest } from '../provider.js';
import type { PinterestTokenResponse } from './pinterest.client.js';

const PLATFORM = 'pinterest' as const;

export function pinterestPinUrl(pinId: string): string {
  return `https://www.pinterest.com/pin/${encodeURIComponent(pinId)}/`;
}

export function fail(category: ProviderError['category'], message: string): never {
  throw new ProviderError({ platform: PLATFORM, category, message });
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function toTokens(body: PinterestTokenResponse, previousRefreshToken: string | null): OAuthTokens {
  const now = Date.now();
  return {
    accessToken: body.access_token,
    refreshToken: body.refresh_token ?? previousRefreshToken,
    expiresAt: typeof body.expires_in === 'number' ? new Date(now + body.expires_in * 1000) : null,
    refreshTokenExpiresAt: typeof body.refresh_token_expires_in === 'number' ? new Date(now + body.refresh_token_expires_in * 1000) : null,
    // Pinterest lists granted scopes separated by commas
    scopes: (body.scope ?? '').split(/[,\s]+/).filter(Boolean),
    extra: {},
  };
}

/** Pin fields shared by image and video Pins, from the post text and settings. */
export function pinFields(request: Pick<PublishRequest, 'text' | 'settings'>, altText?: string): Record<string, unknown> {
  const boardId = str(request.settings.boardId);
  if (!boardId) fail('user_content', 'pinterest needs a board (settings.boardId)');
  const pin: Record<string, unknown> = { board_id: boardId };
  const section = str(request.settings.boardSectionId);
  if (section) pin.board_section_id = section;
  const title = str(request.settings.title);
  if (title) pin.title = title;
  if (request.text) pin.description = request.text;
  const link = str(request.settings.link);
  if (link) pin.link = link;
  if (altText) pin.alt_text = altText;
  return pin;
}

/** What pollPublish needs to create a video Pin once the upload is processed. */
export interface VideoPinPlan {
  mediaId: string;
  pin: Record<string, unknown>;
  cover: { cover_image_url: string } | { cover_image_key_frame_time: number };
}

export function encodePlan(plan: VideoPinPlan): string {
  return `v1.${Buffer.from(JSON.stringify(plan)).toString('base64url')}`;
}

export function decodePlan(token: string): VideoPinPlan {
  try {
    if (!token.startsWith('v1.')) throw new Error('version');
    const plan = JSON.parse(Buffer.from(token.slice(3), 'base64url').toString('utf8')) as VideoPinPlan;
    if (typeof plan.mediaId !== 'string' || typeof plan.pin !== 'object') throw new Error('shape');
    return plan;
  } catch {
    return fail('platform_rejected', 'pinterest poll token is not one this adapter issued');
  }
}
