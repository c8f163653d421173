/**
 * POST /sandbox/_control/metrics {platform, providerPostId, metrics: {name: number}} (sandbox mode only):
 * adds the given values to what the platform's simulator already reports for that post, so a sandbox user
 * can watch the numbers grow through analytics sync. Names are the service's normalized metric names
 * (docs/analytics.md) or the platform's own field names; 404 for an unknown post, 400 for an unknown name.
 */
import type { FastifyInstance } from 'fastify';
import { X_METRIC_FIELDS } from '../providers/x/x.metrics.js';
import type { GoogleSimulatorState } from './simulators/google.simulator.js';
import type { MetaSimState } from './simulators/meta.simulator.js';
import type { PinterestSimulatorState } from './simulators/pinterest.simulator.js';
import type { XSimulatorState } from './simulators/x.simulator.js';

export interface MetricsControlStates {
  meta: MetaSimState;
  google: GoogleSimulatorState;
  pinterest: PinterestSimulatorState;
  x: XSimulatorState;
}

/** per platform: accepted name -> the simulator's own counter */
const CONTROL_METRIC_NAMES = {
  x: X_METRIC_FIELDS,
  youtube: { views: 'viewCount', likes: 'likeCount', comments: 'commentCount', favorites: 'favoriteCount' },
  facebook_page: { views: 'views', reach: 'reach', clicks: 'clicks', reactions: 'likes', likes: 'likes', shares: 'shares' },
  pinterest: { views: 'IMPRESSION', saves: 'SAVE', pin_clicks: 'PIN_CLICK', outbound_clicks: 'OUTBOUND_CLICK' },
} as const satisfies Record<string, Record<string, string>>;
type ControlPlatform = keyof typeof CONTROL_METRIC_NAMES;

const Body = {
  type: 'object',
  additionalProperties: false,
  required: ['platform', 'providerPostId', 'metrics'],
  properties: {
    platform: { type: 'string', enum: Object.keys(CONTROL_METRIC_NAMES) },
    providerPostId: { type: 'string', minLength: 1, maxLength: 128 },
    metrics: {
      type: 'object',
      minProperties: 1,
      maxProperties: 20,
      additionalProperties: { type: 'integer', minimum: 0, maximum: 1_000_000_000 },
    },
  },
} as const;

/** Counter objects the simulators report from, by platform; null for an unknown post. */
function countersOf(s: MetricsControlStates, platform: ControlPlatform, postId: string): Record<string, number | string> | null {
  switch (platform) {
    case 'x':
      return (s.x.tweets.get(postId)?.metrics as Record<string, number> | undefined) ?? null;
    case 'youtube':
      return s.google.videos.get(postId)?.resource.statistics ?? null;
    case 'facebook_page': {
      const o = s.meta.objects.get(postId);
      return o?.kind === 'post' && o.platform === 'facebook_page' ? (o.stats as unknown as Record<string, number>) : null;
    }
    case 'pinterest':
      return (s.pinterest.pins.get(postId)?.metrics as Record<string, number> | undefined) ?? null;
  }
}

export function registerMetricsControl(app: FastifyInstance, states: MetricsControlStates): void {
  app.post('/sandbox/_control/metrics', { schema: { hide: true, body: Body } }, async (request, reply) => {
    const body = request.body as { platform: ControlPlatform; providerPostId: string; metrics: Record<string, number> };
    const names: Record<string, string> = CONTROL_METRIC_NAMES[body.platform];
    const known = new Set([...Object.keys(names), ...Object.values(names)]);
    const unknown = Object.keys(body.metrics).filter((n) => !known.has(n));
    if (unknown.length) {
      return reply.code(400).send({
        error: 'unknown_metric',
        message: `Unknown metric for ${body.platform}: ${unknown.join(', ')}. Known: ${[...known].join(', ')}`,
      });
    }
    const counters = countersOf(states, body.platform, body.providerPostId);
    if (!counters) {
      return reply
        .code(404)
        .send({ error: 'post_not_found', message: `No ${body.platform} post ${body.providerPostId} in the simulator.` });
    }
    for (const [name, value] of Object.entries(body.metrics)) {
      const field = names[name] ?? name;
      const current = Number(counters[field] ?? 0);
      // YouTube reports its statistics as strings
      counters[field] = typeof counters[field] === 'string' ? String(current + value) : current + value;
    }
    return reply.code(200).send({ platform: body.platform, providerPostId: body.providerPostId, metrics: { ...counters } });
  });
}
