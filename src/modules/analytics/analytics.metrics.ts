/**
 * Per-platform metric catalog: the names a snapshot always carries (a name the platform did not report
 * is null, never 0), how the adapter's metric keys map to them, and deprecated platform metrics mapped to
 * their successors. docs/analytics.md shows the same table.
 */
export interface PlatformMetrics {
  /** API the numbers come from, recorded in source.apiVersion */
  apiVersion: string;
  /** snapshot metric names, in order */
  names: readonly string[];
  /** adapter key -> snapshot name (keys not listed keep their own name when they are in names) */
  map: Readonly<Record<string, string>>;
}

export const PLATFORM_METRICS: Readonly<Record<string, PlatformMetrics>> = {
  x: {
    apiVersion: 'x-api-v2',
    names: ['impressions', 'likes', 'replies', 'reposts', 'quotes', 'bookmarks'],
    map: {},
  },
  youtube: {
    apiVersion: 'youtube-data-v3',
    names: ['views', 'likes', 'favorites', 'comments'],
    map: {},
  },
  facebook_page: {
    apiVersion: 'graph-v23.0',
    names: ['views', 'viewers', 'clicks', 'reactions'],
    map: {
      // Meta replaced impressions with views (post_impressions -> post_media_view, 2025)
      post_impressions: 'views',
      post_media_view: 'views',
      post_impressions_unique: 'viewers',
      post_total_media_view_unique: 'viewers',
      post_clicks: 'clicks',
      post_reactions_by_type_total: 'reactions',
    },
  },
  pinterest: {
    apiVersion: 'pinterest-v5',
    names: ['impressions', 'saves', 'pinClicks', 'outboundClicks'],
    map: {},
  },
  instagram_business: {
    apiVersion: 'graph-v23.0',
    names: ['views', 'reach', 'likes', 'comments', 'saved', 'shares'],
    map: { impressions: 'views', plays: 'views' },
  },
  instagram_standalone: {
    apiVersion: 'graph-v23.0',
    names: ['views', 'reach', 'likes', 'comments', 'saved', 'shares'],
    map: { impressions: 'views', plays: 'views' },
  },
  threads: {
    apiVersion: 'threads-v1.0',
    names: ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'],
    map: {},
  },
};

/**
 * Snapshot metrics from what the adapter read: every catalog name present (null when unreported),
 * deprecated names folded into their successors, and other reported numbers kept under their own name.
 */
export function normalizeMetrics(platform: string, reported: Record<string, number | null | undefined>): Record<string, number | null> {
  const def = PLATFORM_METRICS[platform];
  const out: Record<string, number | null> = {};
  for (const n of def?.names ?? []) out[n] = null;
  for (const [key, value] of Object.entries(reported)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    const name = def?.map[key] ?? key;
    // a successor metric reported directly wins over its deprecated predecessor
    if (typeof out[name] === 'number' && name !== key && key in (def?.map ?? {}) && Object.hasOwn(reported, name)) continue;
    out[name] = value;
  }
  return out;
}
