/** Platforms as people know them: display names, icons and where each platform cuts a post. */
import type { Platform } from './client';

export const PLATFORMS: Platform[] = [
  'x',
  'facebook_page',
  'instagram_business',
  'instagram_standalone',
  'threads',
  'youtube',
  'pinterest',
  'tiktok',
];

const PLATFORM_NAMES: Record<string, string> = {
  x: 'X',
  facebook_page: 'Facebook Page',
  instagram_business: 'Instagram (business)',
  instagram_standalone: 'Instagram',
  threads: 'Threads',
  youtube: 'YouTube',
  pinterest: 'Pinterest',
  tiktok: 'TikTok',
};

export const platformName = (p: string) => PLATFORM_NAMES[p] ?? p;

/**
 * Where the platform's feed hides the rest of the text behind "more" (characters), for the preview;
 * the hard limits come from the plan preview (maxTextLength).
 */
export const FOLD_AT: Record<string, number> = {
  x: 280,
  facebook_page: 480,
  instagram_business: 125,
  instagram_standalone: 125,
  threads: 500,
  youtube: 100,
  pinterest: 100,
  tiktok: 150,
};

/** Platforms whose post has a title of its own (the preview shows it above the text). */
export const HAS_TITLE = new Set(['youtube', 'pinterest']);

/** A small mark per platform in its colour (drawn here: no remote images, no icon font). */
export function PlatformIcon({ platform, size = 18 }: { platform: string; size?: number }) {
  const family = platform.startsWith('instagram') ? 'instagram' : platform;
  return (
    <svg className={`picon picon-${family}`} width={size} height={size} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <rect className="picon-bg" width="24" height="24" rx="6" />
      {family === 'x' && <path className="picon-fg-stroke" d="M7 7l10 10M17 7L7 17" strokeWidth="2.2" strokeLinecap="round" />}
      {family === 'facebook_page' && (
        <path
          className="picon-fg"
          d="M13.5 20v-6h2.2l.4-2.6h-2.6V9.8c0-.8.3-1.3 1.4-1.3h1.3V6.2a17 17 0 0 0-2-.1c-2 0-3.3 1.2-3.3 3.4v1.9H8.7V14h2.2v6z"
        />
      )}
      {family === 'instagram' && (
        <>
          <rect className="picon-fg-stroke" x="5.5" y="5.5" width="13" height="13" rx="4" strokeWidth="1.8" fill="none" />
          <circle className="picon-fg-stroke" cx="12" cy="12" r="3.1" strokeWidth="1.8" fill="none" />
          <circle className="picon-fg" cx="16" cy="8" r="1" />
        </>
      )}
      {family === 'threads' && (
        <path
          className="picon-fg-stroke"
          d="M15.5 11.2c-.4-2-1.8-3-3.6-3-2.3 0-3.7 1.7-3.7 3.8s1.4 3.9 3.8 3.9c1.9 0 3.3-1.1 3.3-2.7 0-1.5-1.2-2.3-2.9-2.3-1.4 0-2.3.7-2.3 1.6"
          strokeWidth="1.8"
          fill="none"
          strokeLinecap="round"
        />
      )}
      {family === 'youtube' && <path className="picon-fg" d="M10 8.5v7l6-3.5z" />}
      {family === 'pinterest' && (
        <path
          className="picon-fg"
          d="M12.3 5C8.4 5 6.5 7.7 6.5 10c0 1.4.5 2.6 1.6 3.1.2.1.4 0 .4-.2l.2-.7c.1-.2 0-.3-.1-.5-.3-.4-.6-1-.6-1.7 0-2.2 1.6-4.1 4.3-4.1 2.3 0 3.6 1.4 3.6 3.3 0 2.5-1.1 4.6-2.7 4.6-.9 0-1.6-.7-1.4-1.6.3-1.1.8-2.3.8-3.1 0-.7-.4-1.3-1.2-1.3-.9 0-1.7 1-1.7 2.3 0 .8.3 1.4.3 1.4l-1.1 4.6c-.3 1.4 0 3.1 0 3.3 0 .1.1.1.2 0 .1-.1 1.1-1.4 1.5-2.7l.6-2.3c.3.6 1.2 1.1 2.1 1.1 2.8 0 4.7-2.6 4.7-6C18 7.4 15.8 5 12.3 5z"
        />
      )}
      {family === 'tiktok' && (
        <path
          className="picon-fg"
          d="M15.8 5h-2.6v9.6a2.2 2.2 0 1 1-2.2-2.2l.5.1V9.8h-.5a4.8 4.8 0 1 0 4.8 4.8V9.7a6 6 0 0 0 3.2 1V8.2A3.3 3.3 0 0 1 15.8 5z"
        />
      )}
    </svg>
  );
}

/** Icon and name of a platform, e.g. in a table cell. */
export function PlatformLabel({ platform }: { platform: string }) {
  return (
    <span className="plabel">
      <PlatformIcon platform={platform} />
      {platformName(platform)}
    </span>
  );
}
