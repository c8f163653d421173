/**
 * Pinterest API v5 resources of the simulator: user_account, boards (bookmark pagination), Pin
 * creation from an image URL (fetched, as Pinterest does) or a processed video upload, Pin lookup and
 * Pin analytics.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { fetchImage } from './image-fetch.js';
import { beginAuthorized, dropConnection, PIN_ERRORS, type PinSimContext, sendPinError } from './pinterest-http.js';
import type { PinterestSimulatorState, SimPin } from './pinterest-state.js';

type Query = Record<string, string | undefined>;
const METRICS = ['IMPRESSION', 'SAVE', 'PIN_CLICK', 'OUTBOUND_CLICK'] as const;

function badRequest(reply: FastifyReply, message: string) {
  return sendPinError(reply, 400, PIN_ERRORS.invalidParameters, `Invalid request: ${message}`);
}

function tooLong(value: unknown, max: number): boolean {
  return typeof value === 'string' && [...value].length > max;
}

export function registerPinterestApiRoutes(app: FastifyInstance, state: PinterestSimulatorState, ctx: PinSimContext): void {
  app.get('/v5/user_account', async (request, reply) => {
    const started = await beginAuthorized(ctx, state, 'user_account', request, reply, ['user_accounts:read']);
    if (!started) return reply;
    const { begun, token } = started;
    const user = state.users.find((u) => u.id === token.userId);
    if (!user) return sendPinError(reply, 404, PIN_ERRORS.notFound, 'User not found.');
    const mine = [...state.pins.values()].filter((p) => p.ownerId === user.id).length;
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.send({
      account_type: 'BUSINESS',
      id: user.id,
      profile_image: user.profileImage,
      website_url: '',
      username: user.username,
      about: '',
      business_name: user.businessName,
      board_count: state.boardsOf(user.id).length,
      pin_count: mine,
      follower_count: 0,
      following_count: 0,
      monthly_views: 0,
    });
  });

  app.get('/v5/boards', async (request, reply) => {
    const started = await beginAuthorized(ctx, state, 'boards', request, reply, ['boards:read']);
    if (!started) return reply;
    const { begun, token } = started;
    const q = request.query as Query;
    const size = Number(q.page_size ?? 25);
    if (!Number.isInteger(size) || size < 1 || size > 250) return badRequest(reply, 'page_size must be between 1 and 250');
    const offset = q.bookmark ? Number(Buffer.from(q.bookmark, 'base64url').toString('utf8')) || 0 : 0;
    const all = state.boardsOf(token.userId);
    const page = all.slice(offset, offset + size).map((b) => ({
      id: b.id,
      created_at: '2024-01-01T00:00:00Z',
      board_pins_modified_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      name: b.name,
      description: b.description,
      collaborator_count: 0,
      pin_count: b.pinCount,
      follower_count: 0,
      media: { image_cover_url: null, pin_thumbnail_urls: [] },
      owner: {
        username: state.users.find((u) => u.id === b.ownerId)?.username ?? '',
      },
      privacy: b.privacy,
    }));
    const nextOffset = offset + size;
    const bookmark = nextOffset < all.length ? Buffer.from(String(nextOffset)).toString('base64url') : null;
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.send({ items: page, bookmark });
  });

  // https://developers.pinterest.com/docs/api/v5/pins-list : the account's Pins, newest first, bookmark pagination
  app.get('/v5/pins', async (request, reply) => {
    const started = await beginAuthorized(ctx, state, 'pins_list', request, reply, ['pins:read']);
    if (!started) return reply;
    const { begun, token } = started;
    const q = request.query as Query;
    const size = Number(q.page_size ?? 25);
    if (!Number.isInteger(size) || size < 1 || size > 250) return badRequest(reply, 'page_size must be between 1 and 250');
    // a bookmark names the last Pin seen, not a position: Pins made while a client pages do not shift its
    // next page onto Pins it already had
    const all = [...state.pins.values()].filter((p) => p.ownerId === token.userId).reverse();
    const after = q.bookmark ? Buffer.from(q.bookmark, 'base64url').toString('utf8') : null;
    const offset = after === null ? 0 : all.findIndex((p) => p.resource.id === after) + 1 || all.length;
    const pins = all.slice(offset, offset + size);
    const items = pins.map((p) => p.resource);
    const bookmark = offset + size < all.length ? Buffer.from(String(pins.at(-1)!.resource.id)).toString('base64url') : null;
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.send({ items, bookmark });
  });

  app.post('/v5/pins', async (request, reply) => {
    const started = await beginAuthorized(ctx, state, 'publish', request, reply, ['pins:write']);
    if (!started) return reply;
    const { begun, token } = started;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const source = (body.media_source ?? null) as Record<string, unknown> | null;
    if (typeof body.board_id !== 'string' || body.board_id === '') return badRequest(reply, 'board_id is required');
    if (!source) return badRequest(reply, 'media_source is required');
    if (tooLong(body.title, 100)) return badRequest(reply, 'title must be at most 100 characters');
    if (tooLong(body.description, 800)) return badRequest(reply, 'description must be at most 800 characters');
    if (tooLong(body.alt_text, 500)) return badRequest(reply, 'alt_text must be at most 500 characters');
    if (body.link !== undefined && (tooLong(body.link, 2048) || !/^https?:\/\//.test(String(body.link)))) {
      return badRequest(reply, 'link must be an http(s) URL of at most 2048 characters');
    }
    const board = state.boards.find((b) => b.id === body.board_id && b.ownerId === token.userId);
    if (!board) return sendPinError(reply, 404, PIN_ERRORS.notFound, 'Board not found.');
    if (body.board_section_id !== undefined) return sendPinError(reply, 404, PIN_ERRORS.notFound, 'Board section not found.');

    let media: Record<string, unknown>;
    if (source.source_type === 'image_url') {
      const image = await fetchImage(String(source.url ?? ''), state.imageFetchTimeoutMs);
      if (!image.ok) {
        return sendPinError(reply, 403, PIN_ERRORS.imageBroken, `The Pin's image is too small, too large or is broken (${image.reason}).`);
      }
      media = {
        media_type: 'image',
        images: { originals: { url: source.url, width: 1000, height: 1500 } },
      };
    } else if (source.source_type === 'multiple_image_urls') {
      // a carousel Pin: Pinterest fetches every image (2 to 5, as the description bounds the items)
      const urls = ((source.items ?? []) as Array<{ url?: string }>).map((i) => String(i.url ?? ''));
      for (const url of urls) {
        const image = await fetchImage(url, state.imageFetchTimeoutMs);
        if (!image.ok) {
          return sendPinError(
            reply,
            403,
            PIN_ERRORS.imageBroken,
            `The Pin's image is too small, too large or is broken (${image.reason}).`,
          );
        }
      }
      media = {
        media_type: 'multiple_images',
        items: urls.map((url) => ({ item_type: 'image', images: { originals: { url, width: 1000, height: 1500 } } })),
      };
    } else if (source.source_type === 'video_id') {
      const upload = state.media.get(String(source.media_id ?? ''));
      if (!upload || upload.ownerId !== token.userId) return badRequest(reply, 'media_id not found');
      if (upload.status !== 'succeeded') return badRequest(reply, `media upload is ${upload.status}, not succeeded`);
      if (source.cover_image_url === undefined && source.cover_image_key_frame_time === undefined) {
        return badRequest(reply, 'a video Pin needs cover_image_url or cover_image_key_frame_time');
      }
      media = {
        media_type: 'video',
        // the description types cover_image_url as a string: absent when the cover is a key frame
        ...(typeof source.cover_image_url === 'string' ? { cover_image_url: source.cover_image_url } : {}),
        duration: 10_000,
        width: 1080,
        height: 1920,
      };
    } else {
      return badRequest(reply, `unsupported media_source.source_type ${String(source.source_type)}`);
    }

    const id = state.newPinId();
    const pin: SimPin = {
      ownerId: token.userId,
      metrics: { IMPRESSION: 0, SAVE: 0, PIN_CLICK: 0, OUTBOUND_CLICK: 0 },
      resource: {
        id,
        // RFC 3339, as the description types it (format date-time)
        created_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        link: body.link ?? null,
        title: body.title ?? null,
        description: body.description ?? null,
        dominant_color: '#e5e5e5',
        alt_text: body.alt_text ?? null,
        creative_type: media.media_type === 'video' ? 'VIDEO' : media.media_type === 'multiple_images' ? 'CAROUSEL' : 'REGULAR',
        board_id: board.id,
        board_section_id: null,
        board_owner: {
          username: state.users.find((u) => u.id === token.userId)?.username ?? '',
        },
        is_owner: true,
        media,
        parent_pin_id: null,
        is_standard: true,
        has_been_promoted: false,
        note: '',
        pin_metrics: null,
      },
    };
    state.pins.set(id, pin);
    board.pinCount += 1;
    ctx.ledger.posts.push({
      platform: 'pinterest',
      accountId: token.userId,
      postId: id,
      text: String(body.description ?? ''),
      mediaCount: media.media_type === 'multiple_images' ? (media.items as unknown[]).length : 1,
      ...(typeof body.alt_text === 'string' ? { altTexts: [body.alt_text] } : {}),
      at: Date.now(),
    });
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.code(201).send(pin.resource);
  });

  app.get('/v5/pins/:pinId', async (request, reply) => {
    const started = await beginAuthorized(ctx, state, 'pin_get', request, reply, ['pins:read']);
    if (!started) return reply;
    const { begun } = started;
    const pin = state.pins.get((request.params as { pinId: string }).pinId);
    if (!pin) return sendPinError(reply, 404, PIN_ERRORS.notFound, 'Pin not found.');
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.send(pin.resource);
  });

  app.get('/v5/pins/:pinId/analytics', async (request, reply) => {
    const started = await beginAuthorized(ctx, state, 'pin_analytics', request, reply, ['pins:read']);
    if (!started) return reply;
    const { begun, token } = started;
    const q = request.query as Query;
    if (!q.start_date || !q.end_date || !q.metric_types) return badRequest(reply, 'start_date, end_date and metric_types are required');
    const pin = state.pins.get((request.params as { pinId: string }).pinId);
    if (!pin || pin.ownerId !== token.userId) return sendPinError(reply, 404, PIN_ERRORS.notFound, 'Pin not found.');
    const wanted = q.metric_types.split(',').filter((m): m is (typeof METRICS)[number] => (METRICS as readonly string[]).includes(m));
    const summary = Object.fromEntries(wanted.map((m) => [m, pin.metrics[m]]));
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.send({
      all: {
        daily_metrics: [{ data_status: 'READY', date: q.end_date, metrics: summary }],
        lifetime_metrics: summary,
        summary_metrics: summary,
      },
    });
  });
}
