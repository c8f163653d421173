/** Internal operational routes guarded by the policy table (service tokens only). */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requirePolicy } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import type { Db } from '../database.js';

const MigrateAnswer = Type.Object(
  { applied: Type.Array(Type.String(), { description: 'Migrations run by this call (empty when the schema was current).' }) },
  { $id: 'MigrateAnswer', additionalProperties: false },
);

export function registerInternalRoutes(root: FastifyInstance, db: Db): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/v1/internal/db/migrate',
    {
      config: requirePolicy('admin.db.migrate'),
      schema: {
        operationId: 'runMigrations',
        tags: ['System'],
        summary: 'Internal: run pending database migrations',
        description: 'Policy admin.db.migrate: x-service-internal-token or x-service-principal-token only, never from a browser.',
        security: [{ internalServiceToken: [] }, { servicePrincipalToken: [] }],
        response: { 200: MigrateAnswer, ...errorResponses('dashboard_session_required', 'permission_denied', 'internal_server_error') },
      },
    },
    async () => ({ applied: await migrateToLatest(db) }),
  );
}
