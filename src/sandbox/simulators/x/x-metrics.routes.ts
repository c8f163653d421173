/**
 * Multi-post lookup of the X simulator, the call analytics sync makes:
 * GET /2/tweets?ids=1,2&tweet.fields=public_metrics. Found posts go to data, missing ones to errors
 * (resource-not-found), as X answers. The numbers are the post's metrics (replies count themselves;
 * POST /sandbox/_control/metrics adds to them).
 */
import type { FastifyInstance } from 'fastify';
import { authorize, invalidRequest, simulate, type XSimContext } from './x-http.js';

export function registerXMetricsRoutes(app: FastifyInstance, ctx: XSimContext): void {
  const { state } = ctx;
  app.get(
    '/2/tweets',
    simulate(ctx, 'tweets_lookup', (req) => {
      authorize(ctx, req, ['tweet.read', 'users.read'], 'tweets_lookup', 900);
      const q = req.query as Record<string, string | undefined>;
      const ids = String(q.ids ?? '')
        .split(',')
        .filter(Boolean);
      if (ids.length < 1 || ids.length > 100) throw invalidRequest('The `ids` query parameter must hold 1 to 100 ids.', 'ids');
      const fields = String(q['tweet.fields'] ?? '')
        .split(',')
        .filter(Boolean);
      const data: Record<string, unknown>[] = [];
      const errors: Record<string, unknown>[] = [];
      for (const id of ids) {
        const t = state.tweets.get(id);
        if (!t) {
          errors.push({
            value: id,
            detail: `Could not find tweet with ids: [${id}].`,
            title: 'Not Found Error',
            resource_type: 'tweet',
            parameter: 'ids',
            resource_id: id,
            type: 'https://api.x.com/2/problems/resource-not-found',
          });
          continue;
        }
        const out: Record<string, unknown> = { id: t.id, text: t.text, edit_history_tweet_ids: [t.id] };
        if (fields.includes('public_metrics')) out.public_metrics = { ...t.metrics };
        if (fields.includes('created_at')) out.created_at = t.createdAt;
        if (fields.includes('author_id')) out.author_id = t.authorId;
        data.push(out);
      }
      const body: Record<string, unknown> = {};
      if (data.length) body.data = data;
      if (errors.length) body.errors = errors;
      return { status: 200, body };
    }),
  );
}
