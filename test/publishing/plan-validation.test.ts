/** Plan validation rules per platform (pure; the HTTP route is covered in plans.test.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validatePlan } from '../../src/modules/publishing/plan-validation.js';
import { deriveJobStatus } from '../../src/modules/publishing/publish-states.js';
import { MB, planMedia, validateOneTarget } from './plan-support.js';

const media = planMedia;
const run = validateOneTarget;

const codes = (r: ReturnType<typeof run>) =>
  r.issues
    .filter((i) => i.severity === 'blocking')
    .map((i) => i.code)
    .sort();
const YT = { title: 'A title', privacyStatus: 'public' };
const TT = {
  privacy_level: 'PUBLIC_TO_EVERYONE',
  disable_comment: false,
  disable_duet: false,
  disable_stitch: false,
  brand_content_toggle: false,
  brand_organic_toggle: false,
};

describe('plan validation', () => {
  it('X counts weighted characters with URLs as 23', () => {
    const url = `https://example.com/${'a'.repeat(300)}`;
    assert.deepEqual(codes(run('x', { text: `${'a'.repeat(250)} ${url}` })), []);
    assert.equal(run('x', { text: `${'a'.repeat(250)} ${url}` }).targets[0]!.textLength, 274);
    assert.deepEqual(codes(run('x', { text: 'a'.repeat(281) })), ['text_too_long']);
    // CJK characters weigh 2
    assert.deepEqual(codes(run('x', { text: '漢'.repeat(141) })), ['text_too_long']);
  });

  it('YouTube counts the description in UTF-8 bytes and needs title, privacy and one video', () => {
    const text = 'é'.repeat(2501); // 5002 bytes, 2501 characters
    const r = run('youtube', {
      text,
      media: [media('video')],
      target: { settings: YT },
    });
    assert.deepEqual(codes(r), ['text_too_long']);
    assert.deepEqual(
      codes(
        run('youtube', {
          media: [media('video')],
          target: { settings: { privacyStatus: 'secret' } },
        }),
      ),
      ['setting_required', 'setting_value_not_allowed'],
    );
    assert.deepEqual(codes(run('youtube', { target: { settings: YT } })), ['media_required']);
    assert.deepEqual(codes(run('youtube', { media: [media('image')], target: { settings: YT } })), ['media_kind_not_allowed']);
    assert.deepEqual(
      codes(
        run('youtube', {
          text: 'a <b>',
          media: [media('video')],
          target: { settings: YT },
        }),
      ),
      ['text_forbidden_characters'],
    );
    assert.deepEqual(
      codes(
        run('youtube', {
          media: [media('video')],
          target: { settings: { ...YT, title: 't'.repeat(101) } },
        }),
      ),
      ['setting_too_long'],
    );
  });

  it('target text overrides the plan text, and an empty string stays empty', () => {
    const r = run('x', { text: 'plan text', target: { text: '' } });
    assert.equal(r.targets[0]!.text, '');
    assert.deepEqual(codes(r), ['text_or_media_required']);
    assert.deepEqual(r.issues[0]!.path, ['targets', '0', 'text']);
    assert.equal(run('x', { text: 'plan text' }).targets[0]!.text, 'plan text');
  });

  it('Instagram needs media, checks width, aspect ratio, bytes and video duration', () => {
    assert.deepEqual(codes(run('instagram_business')), ['media_required']);
    assert.deepEqual(
      codes(
        run('instagram_business', {
          media: [media('image', { width: 200, height: 200 })],
        }),
      ),
      ['image_too_small'],
    );
    assert.deepEqual(
      codes(
        run('instagram_business', {
          media: [media('image', { width: 1080, height: 1920 })],
        }),
      ),
      ['aspect_ratio_out_of_range'],
    );
    assert.deepEqual(
      codes(
        run('instagram_business', {
          media: [media('image', { bytes: 9 * MB })],
        }),
      ),
      ['media_too_large'],
    );
    assert.deepEqual(
      codes(
        run('instagram_business', {
          media: [media('video', { durationSeconds: 2 })],
        }),
      ),
      ['video_too_short'],
    );
    assert.deepEqual(
      codes(
        run('instagram_standalone', {
          media: [media('video', { durationSeconds: 901 })],
        }),
      ),
      ['video_too_long'],
    );
    const eleven = Array.from({ length: 11 }, (_, i) => media('image', {}, i));
    assert.deepEqual(codes(run('instagram_business', { media: eleven })), ['too_many_media']);
    assert.deepEqual(
      codes(
        run('instagram_business', {
          target: { settings: { postType: 'igtv' } },
          media: [media('image')],
        }),
      ),
      ['setting_value_not_allowed'],
    );
    const tags = Array.from({ length: 31 }, (_, i) => `#t${i}`).join(' ');
    assert.deepEqual(codes(run('instagram_business', { text: tags, media: [media('image')] })), ['too_many_hashtags']);
  });

  it('X refuses mixing kinds, more than one video and oversize GIFs', () => {
    assert.deepEqual(codes(run('x', { media: [media('image'), media('video', {}, 1)] })), ['media_kinds_mixed']);
    assert.deepEqual(codes(run('x', { media: [media('video'), media('video', {}, 1)] })), ['too_many_media']);
    assert.deepEqual(codes(run('x', { media: [media('gif', { bytes: 16 * MB })] })), ['media_too_large']);
    assert.deepEqual(codes(run('x', { target: { settings: { reply_settings: 'everyone' } } })), ['setting_value_not_allowed']);
    assert.deepEqual(codes(run('x', { media: [media('image', { altText: 'a'.repeat(1001) })] })), ['alt_text_too_long']);
  });

  it('Facebook refuses GIF kinds and combined photos and video; Threads counts bytes and links', () => {
    assert.deepEqual(
      codes(
        run('facebook_page', {
          media: [media('image'), media('video', {}, 1)],
        }),
      ),
      ['media_kinds_mixed'],
    );
    assert.deepEqual(codes(run('facebook_page', { media: [media('gif')] })), ['media_kind_not_allowed']);
    assert.deepEqual(codes(run('threads', { text: '😀'.repeat(126) })), ['text_too_long']);
    const links = Array.from({ length: 6 }, (_, i) => `https://e${i}.example.com`).join(' ');
    assert.deepEqual(codes(run('threads', { text: links })), ['too_many_links']);
  });

  it('Pinterest needs a board and one item; TikTok needs its settings and refuses private branded content', () => {
    assert.deepEqual(
      codes(
        run('pinterest', {
          media: [media('image', { width: 1000, height: 1500 })],
        }),
      ),
      ['setting_required'],
    );
    assert.deepEqual(
      codes(
        run('pinterest', {
          media: [media('image', { width: 1000, height: 1500 })],
          target: { settings: { boardId: 'b1' } },
        }),
      ),
      [],
    );
    assert.deepEqual(
      codes(
        run('pinterest', {
          media: [media('image', { width: 3000, height: 1000 })],
          target: { settings: { boardId: 'b1' } },
        }),
      ),
      ['aspect_ratio_out_of_range'],
    );
    assert.equal(codes(run('tiktok', { media: [media('video')] })).filter((c) => c === 'setting_required').length, 6);
    assert.deepEqual(
      codes(
        run('tiktok', {
          media: [media('video')],
          target: {
            settings: {
              ...TT,
              brand_content_toggle: true,
              privacy_level: 'SELF_ONLY',
            },
          },
        }),
      ),
      ['setting_conflict'],
    );
    assert.deepEqual(
      codes(
        run('tiktok', {
          media: [media('video', { width: 200, height: 300 })],
          target: { settings: TT },
        }),
      ),
      ['video_too_small'],
    );
    assert.deepEqual(
      codes(
        run('tiktok', {
          media: [media('video', { durationSeconds: 2 })],
          target: { settings: { ...TT, disable_duet: 'no' } },
        }),
      ),
      ['setting_invalid_type', 'video_too_short'],
    );
  });

  it('checks channel state, platform match, brand and firstComment support', () => {
    assert.deepEqual(codes(run('x', { state: 'reconnect_required' })), ['channel_not_connected']);
    assert.deepEqual(codes(run('x', { channelPlatform: 'threads' })), ['channel_platform_mismatch']);
    assert.deepEqual(
      codes(
        run('pinterest', {
          media: [media('image', { width: 1000, height: 1500 })],
          target: {
            settings: { boardId: 'b', firstComment: { content: 'hi' } },
          },
        }),
      ),
      ['plug_not_supported'],
    );
    assert.deepEqual(
      codes(
        run('x', {
          target: { settings: { firstComment: { content: '', delayMs: -1 } } },
        }),
      ),
      ['setting_invalid_type', 'setting_required'],
    );
    assert.deepEqual(
      codes(
        run('x', {
          target: {
            settings: {
              firstComment: { content: 'link in bio', delayMs: 1000 },
            },
          },
        }),
      ),
      [],
    );
    const r = validatePlan({
      brandId: 'brd_x',
      brandExists: false,
      productId: 'prd_x',
      productExists: false,
      text: 't',
      media: [],
      targets: [],
      channels: new Map(),
      resolutionIssues: [],
    });
    assert.deepEqual(r.issues.map((i) => i.code).sort(), ['brand_not_found', 'product_not_found', 'targets_required']);
    assert.equal(r.valid, false);
    const unknown = run('x', { target: { channelAccountId: 'cha_missing' } });
    assert.deepEqual(codes(unknown), ['channel_not_found']);
    assert.equal(run('x', { target: { settings: { colour: 'red' } } }).issues[0]!.severity, 'warning');
  });

  it('derives the job status from its targets', () => {
    assert.equal(deriveJobStatus(['published', 'published']), 'published');
    assert.equal(deriveJobStatus(['published', 'failed']), 'partially_published');
    assert.equal(deriveJobStatus(['published', 'cancelled']), 'published');
    assert.equal(deriveJobStatus(['cancelled', 'cancelled']), 'cancelled');
    assert.equal(deriveJobStatus(['scheduled', 'scheduled']), 'scheduled');
    assert.equal(deriveJobStatus(['scheduled', 'queued']), 'queued');
    assert.equal(deriveJobStatus(['published', 'queued']), 'publishing');
    assert.equal(deriveJobStatus(['failed', 'needs_attention']), 'needs_attention');
    assert.equal(deriveJobStatus(['failed', 'needs_reconnect']), 'needs_reconnect');
    assert.equal(deriveJobStatus(['draft']), 'draft');
  });
});
