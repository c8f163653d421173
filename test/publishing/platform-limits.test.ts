/**
 * Every platform limit at its boundary: the limit passes, one over blocks (one under for minimums).
 * Each limit comes from the official page cited in that platform's rules file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PlanMedia } from '../../src/modules/publishing/plan-validation.js';
import { MB, planMedia, validateOneTarget } from './plan-support.js';

const GB = 1024 * MB;
const item = planMedia;
const many = (n: number, kind: PlanMedia['kind'] = 'image') => Array.from({ length: n }, (_, i) => item(kind, {}, i));

interface Case {
  text?: string;
  media?: PlanMedia[];
  settings?: Record<string, unknown>;
}

/** The blocking issue codes of a one-target plan. */
function blocking(platform: string, c: Case): string[] {
  const v = validateOneTarget(platform, { text: c.text, media: c.media, target: { settings: c.settings } });
  return v.issues.filter((i) => i.severity === 'blocking').map((i) => i.code);
}

/** [name, platform, at the limit, past the limit, the code past the limit raises] */
type Boundary = [string, string, Case, Case, string];

const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://site${i}.example.com`).join(' ');
const link = (n: number) => `https://e.com/${'a'.repeat(n - 'https://e.com/'.length)}`;

const INSTAGRAM = (platform: string): Boundary[] => [
  [
    `${platform} caption 2200 characters`,
    platform,
    { text: 'a'.repeat(2200), media: many(1) },
    { text: 'a'.repeat(2201), media: many(1) },
    'text_too_long',
  ],
  [
    `${platform} 30 hashtags`,
    platform,
    { text: words('#t', 30), media: many(1) },
    { text: words('#t', 31), media: many(1) },
    'too_many_hashtags',
  ],
  [
    `${platform} 20 mentions`,
    platform,
    { text: words('@u', 20), media: many(1) },
    { text: words('@u', 21), media: many(1) },
    'too_many_mentions',
  ],
  [`${platform} 10 carousel items`, platform, { media: many(10) }, { media: many(11) }, 'too_many_media'],
  [
    `${platform} image 8 MB`,
    platform,
    { media: [item('image', { bytes: 8 * MB })] },
    { media: [item('image', { bytes: 8 * MB + 1 })] },
    'media_too_large',
  ],
  [
    `${platform} video 300 MB`,
    platform,
    { media: [item('video', { bytes: 300 * MB })] },
    { media: [item('video', { bytes: 300 * MB + 1 })] },
    'media_too_large',
  ],
  [
    `${platform} video at most 15 min`,
    platform,
    { media: [item('video', { durationSeconds: 900 })] },
    { media: [item('video', { durationSeconds: 901 })] },
    'video_too_long',
  ],
  [
    `${platform} video at least 3 s`,
    platform,
    { media: [item('video', { durationSeconds: 3 })] },
    { media: [item('video', { durationSeconds: 2.9 })] },
    'video_too_short',
  ],
  [
    `${platform} image width at least 320 px`,
    platform,
    { media: [item('image', { width: 320, height: 320 })] },
    { media: [item('image', { width: 319, height: 319 })] },
    'image_too_small',
  ],
  [
    `${platform} aspect ratio at least 4:5`,
    platform,
    { media: [item('image', { width: 1080, height: 1350 })] },
    { media: [item('image', { width: 1080, height: 1360 })] },
    'aspect_ratio_out_of_range',
  ],
  [
    `${platform} aspect ratio at most 1.91:1`,
    platform,
    { media: [item('image', { width: 1910, height: 1000 })] },
    { media: [item('image', { width: 1920, height: 1000 })] },
    'aspect_ratio_out_of_range',
  ],
];

const BOUNDARIES: Boundary[] = [
  // Facebook Page
  ['facebook_page text 63206 characters', 'facebook_page', { text: 'a'.repeat(63206) }, { text: 'a'.repeat(63207) }, 'text_too_long'],
  ['facebook_page 10 photos', 'facebook_page', { media: many(10) }, { media: many(11) }, 'too_many_media'],
  ['facebook_page one video', 'facebook_page', { media: many(1, 'video') }, { media: many(2, 'video') }, 'too_many_media'],
  [
    'facebook_page photo 4 MB',
    'facebook_page',
    { media: [item('image', { bytes: 4 * MB })] },
    { media: [item('image', { bytes: 4 * MB + 1 })] },
    'media_too_large',
  ],
  [
    'facebook_page video 10 GB',
    'facebook_page',
    { media: [item('video', { bytes: 10 * GB })] },
    { media: [item('video', { bytes: 10 * GB + 1 })] },
    'media_too_large',
  ],
  [
    'facebook_page video 240 min',
    'facebook_page',
    { media: [item('video', { durationSeconds: 14400 })] },
    { media: [item('video', { durationSeconds: 14401 })] },
    'video_too_long',
  ],
  // Instagram (both logins share the publishing backend)
  ...INSTAGRAM('instagram_business'),
  ...INSTAGRAM('instagram_standalone'),
  // Threads
  ['threads text 500 bytes', 'threads', { text: 'a'.repeat(500) }, { text: 'a'.repeat(501) }, 'text_too_long'],
  ['threads text counts UTF-8 bytes', 'threads', { text: 'é'.repeat(250) }, { text: `${'é'.repeat(250)}a` }, 'text_too_long'],
  ['threads 5 links', 'threads', { text: urls(5) }, { text: urls(6) }, 'too_many_links'],
  ['threads 20 carousel items', 'threads', { media: many(20) }, { media: many(21) }, 'too_many_media'],
  [
    'threads image 8 MB',
    'threads',
    { media: [item('image', { bytes: 8 * MB })] },
    { media: [item('image', { bytes: 8 * MB + 1 })] },
    'media_too_large',
  ],
  [
    'threads video 1 GB',
    'threads',
    { media: [item('video', { bytes: GB })] },
    { media: [item('video', { bytes: GB + 1 })] },
    'media_too_large',
  ],
  [
    'threads video 5 min',
    'threads',
    { media: [item('video', { durationSeconds: 300 })] },
    { media: [item('video', { durationSeconds: 301 })] },
    'video_too_long',
  ],
  [
    'threads image width at least 320 px',
    'threads',
    { media: [item('image', { width: 320, height: 320 })] },
    { media: [item('image', { width: 319, height: 319 })] },
    'image_too_small',
  ],
  [
    'threads aspect ratio at most 10:1',
    'threads',
    { media: [item('image', { width: 3200, height: 320 })] },
    { media: [item('image', { width: 3210, height: 320 })] },
    'aspect_ratio_out_of_range',
  ],
  // X
  ['x text 280 weighted characters', 'x', { text: 'a'.repeat(280) }, { text: 'a'.repeat(281) }, 'text_too_long'],
  ['x CJK counts 2', 'x', { text: '字'.repeat(140) }, { text: '字'.repeat(141) }, 'text_too_long'],
  ['x 4 images', 'x', { media: many(4) }, { media: many(5) }, 'too_many_media'],
  ['x one GIF', 'x', { media: many(1, 'gif') }, { media: many(2, 'gif') }, 'too_many_media'],
  ['x one video', 'x', { media: many(1, 'video') }, { media: many(2, 'video') }, 'too_many_media'],
  [
    'x image 5 MB',
    'x',
    { media: [item('image', { bytes: 5 * MB })] },
    { media: [item('image', { bytes: 5 * MB + 1 })] },
    'media_too_large',
  ],
  ['x GIF 15 MB', 'x', { media: [item('gif', { bytes: 15 * MB })] }, { media: [item('gif', { bytes: 15 * MB + 1 })] }, 'media_too_large'],
  [
    'x video 512 MB',
    'x',
    { media: [item('video', { bytes: 512 * MB })] },
    { media: [item('video', { bytes: 512 * MB + 1 })] },
    'media_too_large',
  ],
  [
    'x video at most 140 s',
    'x',
    { media: [item('video', { durationSeconds: 140 })] },
    { media: [item('video', { durationSeconds: 141 })] },
    'video_too_long',
  ],
  [
    'x video at least 0.5 s',
    'x',
    { media: [item('video', { durationSeconds: 0.5 })] },
    { media: [item('video', { durationSeconds: 0.4 })] },
    'video_too_short',
  ],
  [
    'x alt text 1000 characters',
    'x',
    { media: [item('image', { altText: 'a'.repeat(1000) })] },
    { media: [item('image', { altText: 'a'.repeat(1001) })] },
    'alt_text_too_long',
  ],
  // YouTube
  [
    'youtube description 5000 bytes',
    'youtube',
    { text: 'a'.repeat(5000), media: many(1, 'video') },
    { text: 'a'.repeat(5001), media: many(1, 'video') },
    'text_too_long',
  ],
  [
    'youtube title 100 characters',
    'youtube',
    { media: many(1, 'video'), settings: { title: 't'.repeat(100) } },
    { media: many(1, 'video'), settings: { title: 't'.repeat(101) } },
    'setting_too_long',
  ],
  [
    'youtube tags 500 characters',
    'youtube',
    { media: many(1, 'video'), settings: { tags: 't'.repeat(500) } },
    { media: many(1, 'video'), settings: { tags: 't'.repeat(501) } },
    'setting_too_long',
  ],
  ['youtube one video', 'youtube', { media: many(1, 'video') }, { media: many(2, 'video') }, 'too_many_media'],
  [
    'youtube video 256 GB',
    'youtube',
    { media: [item('video', { bytes: 256 * GB })] },
    { media: [item('video', { bytes: 256 * GB + 1 })] },
    'media_too_large',
  ],
  [
    'youtube video 12 h',
    'youtube',
    { media: [item('video', { durationSeconds: 43200 })] },
    { media: [item('video', { durationSeconds: 43201 })] },
    'video_too_long',
  ],
  // Pinterest
  [
    'pinterest description 800 characters',
    'pinterest',
    { text: 'a'.repeat(800), media: many(1) },
    { text: 'a'.repeat(801), media: many(1) },
    'text_too_long',
  ],
  [
    'pinterest title 100 characters',
    'pinterest',
    { media: many(1), settings: { title: 't'.repeat(100) } },
    { media: many(1), settings: { title: 't'.repeat(101) } },
    'setting_too_long',
  ],
  [
    'pinterest link 2048 characters',
    'pinterest',
    { media: many(1), settings: { link: link(2048) } },
    { media: many(1), settings: { link: link(2049) } },
    'setting_too_long',
  ],
  [
    'pinterest alt text 500 characters',
    'pinterest',
    { media: [item('image', { altText: 'a'.repeat(500) })] },
    { media: [item('image', { altText: 'a'.repeat(501) })] },
    'alt_text_too_long',
  ],
  ['pinterest carousel 5 images', 'pinterest', { media: many(5) }, { media: many(6) }, 'too_many_media'],
  ['pinterest one video', 'pinterest', { media: many(1, 'video') }, { media: many(2, 'video') }, 'too_many_media'],
  [
    'pinterest images and a video not mixed',
    'pinterest',
    { media: many(2) },
    { media: [...many(1), item('video', {}, 1)] },
    'media_kinds_mixed',
  ],
  [
    'pinterest image 20 MB',
    'pinterest',
    { media: [item('image', { bytes: 20 * MB })] },
    { media: [item('image', { bytes: 20 * MB + 1 })] },
    'media_too_large',
  ],
  [
    'pinterest video 2 GB',
    'pinterest',
    { media: [item('video', { bytes: 2 * GB })] },
    { media: [item('video', { bytes: 2 * GB + 1 })] },
    'media_too_large',
  ],
  [
    'pinterest video at most 15 min',
    'pinterest',
    { media: [item('video', { durationSeconds: 900 })] },
    { media: [item('video', { durationSeconds: 901 })] },
    'video_too_long',
  ],
  [
    'pinterest video at least 4 s',
    'pinterest',
    { media: [item('video', { durationSeconds: 4 })] },
    { media: [item('video', { durationSeconds: 3.9 })] },
    'video_too_short',
  ],
  [
    'pinterest aspect ratio at least 1:2',
    'pinterest',
    { media: [item('image', { width: 1000, height: 2000 })] },
    { media: [item('image', { width: 1000, height: 2010 })] },
    'aspect_ratio_out_of_range',
  ],
  [
    'pinterest aspect ratio at most 1.91:1',
    'pinterest',
    { media: [item('image', { width: 1910, height: 1000 })] },
    { media: [item('image', { width: 1920, height: 1000 })] },
    'aspect_ratio_out_of_range',
  ],
  // TikTok
  [
    'tiktok video caption 2200 UTF-16 units',
    'tiktok',
    { text: 'a'.repeat(2200), media: many(1, 'video') },
    { text: 'a'.repeat(2201), media: many(1, 'video') },
    'text_too_long',
  ],
  [
    'tiktok caption counts an emoji as 2',
    'tiktok',
    { text: '😀'.repeat(1100), media: many(1, 'video') },
    { text: `${'😀'.repeat(1100)}a`, media: many(1, 'video') },
    'text_too_long',
  ],
  [
    'tiktok photo description 4000 UTF-16 units',
    'tiktok',
    { text: 'a'.repeat(4000), media: many(1) },
    { text: 'a'.repeat(4001), media: many(1) },
    'text_too_long',
  ],
  [
    'tiktok photo title 90 characters',
    'tiktok',
    { media: many(1), settings: { title: 't'.repeat(90) } },
    { media: many(1), settings: { title: 't'.repeat(91) } },
    'setting_too_long',
  ],
  ['tiktok 35 photos', 'tiktok', { media: many(35) }, { media: many(36) }, 'too_many_media'],
  ['tiktok one video', 'tiktok', { media: many(1, 'video') }, { media: many(2, 'video') }, 'too_many_media'],
  [
    'tiktok photo 20 MB',
    'tiktok',
    { media: [item('image', { bytes: 20 * MB })] },
    { media: [item('image', { bytes: 20 * MB + 1 })] },
    'media_too_large',
  ],
  [
    'tiktok video 4 GB',
    'tiktok',
    { media: [item('video', { bytes: 4 * GB })] },
    { media: [item('video', { bytes: 4 * GB + 1 })] },
    'media_too_large',
  ],
  [
    'tiktok video at most 10 min',
    'tiktok',
    { media: [item('video', { durationSeconds: 600 })] },
    { media: [item('video', { durationSeconds: 601 })] },
    'video_too_long',
  ],
  [
    'tiktok video at least 3 s',
    'tiktok',
    { media: [item('video', { durationSeconds: 3 })] },
    { media: [item('video', { durationSeconds: 2.9 })] },
    'video_too_short',
  ],
  [
    'tiktok video side at least 360 px',
    'tiktok',
    { media: [item('video', { width: 360, height: 640 })] },
    { media: [item('video', { width: 359, height: 640 })] },
    'video_too_small',
  ],
  [
    'tiktok video side at most 4096 px',
    'tiktok',
    { media: [item('video', { width: 2304, height: 4096 })] },
    { media: [item('video', { width: 2304, height: 4097 })] },
    'video_too_large_dimensions',
  ],
];

describe('platform limits at the boundary', () => {
  for (const [name, platform, at, over, code] of BOUNDARIES) {
    it(name, () => {
      assert.ok(!blocking(platform, at).includes(code), `${name}: the limit itself must pass (${code})`);
      assert.ok(blocking(platform, over).includes(code), `${name}: one past the limit must block with ${code}`);
    });
  }
});
