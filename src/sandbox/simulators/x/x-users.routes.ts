/**
 * User and community endpoints of the X simulator: /2/users/me, users search (403 client-forbidden when
 * the simulated access tier lacks it), lookup by username, and communities search.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authorize, problem, simulate, type XSimContext } from './x-http.js';
import type { XSimUser } from './x-state.js';

const READ_LIMIT = 900;

export function userJson(u: XSimUser, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: u.id,
    name: u.name,
    username: u.username,
  };
  if (fields.includes('profile_image_url')) out.profile_image_url = u.profileImageUrl;
  if (fields.includes('verified')) out.verified = u.verified;
  return out;
}

const listParam = (req: FastifyRequest, name: string) =>
  String((req.query as Record<string, string>)[name] ?? '')
    .split(',')
    .filter(Boolean);

export function registerXUserRoutes(app: FastifyInstance, ctx: XSimContext): void {
  const { state } = ctx;

  app.get(
    '/2/users/me',
    simulate(ctx, 'users_me', (req) => {
      const token = authorize(ctx, req, ['users.read', 'tweet.read'], 'users_me', 75);
      const user = state.users.get(token.userId);
      if (!user) throw problem(401, 'Unauthorized');
      return {
        status: 200,
        body: { data: userJson(user, listParam(req, 'user.fields')) },
      };
    }),
  );

  app.get(
    '/2/users/search',
    simulate(ctx, 'users_search', (req) => {
      authorize(ctx, req, ['users.read', 'tweet.read'], 'users_search', READ_LIMIT);
      if (!state.usersSearchEnabled) {
        throw problem(
          403,
          'When authenticating requests to the X API v2 endpoints, you must use keys and tokens from an App with the appropriate level of access.',
          'https://api.x.com/2/problems/client-forbidden',
          undefined,
          {
            reason: 'client-not-enrolled',
            required_enrollment: 'Appropriate Level of API Access',
          },
        );
      }
      const q = String((req.query as Record<string, string>).query ?? '').toLowerCase();
      if (!q) throw problem(400, 'The `query` query parameter can not be empty', 'https://api.x.com/2/problems/invalid-request');
      const fields = listParam(req, 'user.fields');
      const found = [...state.users.values()].filter((u) => u.username.toLowerCase().includes(q) || u.name.toLowerCase().includes(q));
      return {
        status: 200,
        body: found.length ? { data: found.map((u) => userJson(u, fields)) } : { meta: { result_count: 0 } },
      };
    }),
  );

  app.get(
    '/2/users/by/username/:username',
    simulate(ctx, 'users_lookup', (req) => {
      authorize(ctx, req, ['users.read', 'tweet.read'], 'users_lookup', READ_LIMIT);
      const username = (req.params as { username: string }).username;
      const user = [...state.users.values()].find((u) => u.username.toLowerCase() === username.toLowerCase());
      if (!user) {
        return {
          status: 200,
          body: {
            errors: [
              {
                value: username,
                detail: `Could not find user with username: [${username}].`,
                title: 'Not Found Error',
                resource_type: 'user',
                parameter: 'username',
                resource_id: username,
                type: 'https://api.x.com/2/problems/resource-not-found',
              },
            ],
          },
        };
      }
      return {
        status: 200,
        body: { data: userJson(user, listParam(req, 'user.fields')) },
      };
    }),
  );

  app.get(
    '/2/communities/search',
    simulate(ctx, 'community_search', (req) => {
      authorize(ctx, req, ['tweet.read', 'users.read'], 'community_search', 300);
      const q = String((req.query as Record<string, string>).query ?? '').toLowerCase();
      if (!q) throw problem(400, 'The `query` query parameter can not be empty', 'https://api.x.com/2/problems/invalid-request');
      const found = state.communities.filter((c) => c.name.toLowerCase().includes(q) || c.description.toLowerCase().includes(q));
      return {
        status: 200,
        body: found.length ? { data: found, meta: { result_count: found.length } } : { meta: { result_count: 0 } },
      };
    }),
  );
}
