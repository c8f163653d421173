import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { StorageHealth } from '../app-deps.js';
import { checkReadiness, checkStorage, type ReadinessPorts, SERVICE_NAME } from './health.service.js';

const Component = Type.Object({ ok: Type.Boolean() }, { additionalProperties: true });
const Liveness = Type.Object(
  { ok: Type.Literal(true), service: Type.Literal(SERVICE_NAME), version: Type.String() },
  { $id: 'Liveness', additionalProperties: false },
);
const Readiness = Type.Object(
  {
    ok: Type.Boolean(),
    service: Type.Literal(SERVICE_NAME),
    version: Type.String(),
    components: Type.Object({ database: Component, redis: Component, worker: Component }, { additionalProperties: false }),
  },
  {
    $id: 'Readiness',
    additionalProperties: false,
    description: '503 when any required component is not ok (redis counts only when REDIS_URL is set).',
  },
);
const StorageReadiness = Type.Object(
  {
    ok: Type.Boolean(),
    service: Type.Literal(SERVICE_NAME),
    mediaStorage: Type.Object({ configured: Type.Boolean() }, { additionalProperties: true }),
  },
  { $id: 'StorageReadiness', additionalProperties: false },
);

export function registerHealthRoutes(app: FastifyInstance, deps: ReadinessPorts & { storageHealth: () => Promise<StorageHealth> }): void {
  app.get(
    '/v1/health/live',
    {
      schema: { operationId: 'getLiveness', tags: ['System'], summary: 'Liveness', security: [], response: { 200: Liveness } },
    },
    async () => ({ ok: true as const, service: SERVICE_NAME, version: deps.version }),
  );

  app.get(
    '/v1/health/ready',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['System'],
        summary: 'Readiness of database, Redis and worker',
        security: [],
        response: { 200: Readiness, 503: Readiness },
      },
    },
    async (_req, reply) => {
      const body = await checkReadiness(deps);
      return reply.code(body.ok ? 200 : 503).send(body);
    },
  );

  app.get(
    '/v1/health/storage',
    {
      schema: {
        operationId: 'getStorageReadiness',
        tags: ['System'],
        summary: 'Media storage readiness',
        security: [],
        response: { 200: StorageReadiness, 503: StorageReadiness },
      },
    },
    async (_req, reply) => {
      const body = await checkStorage(deps.storageHealth);
      return reply.code(body.ok ? 200 : 503).send(body);
    },
  );
}
