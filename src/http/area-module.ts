/**
 * The one shape of an area as the composition root (src/main/composition.ts) sees it: the routes it
 * registers, the job definitions the worker runs, and the read interface other areas may call.
 */
import type { FastifyInstance } from 'fastify';
import type { JobDefinition } from '../platform/queue/job-queue.js';
import type { AuthScheme } from './auth-scheme.js';
import type { ErrorEnvelope } from './error-handler.js';

export interface AreaModule<Read = undefined> {
  /** registers the area's routes (and their schemas) on the app */
  routes(app: FastifyInstance): void | Promise<void>;
  /** the area's jobs; the root lists every area's in one registry */
  jobs: JobDefinition<any>[];
  /** what other areas may call (never the area's tables) */
  read: Read;
  /** the area's own error shape for its path prefix, where its specification sets one (the tool API) */
  errorEnvelope?: ErrorEnvelope;
  /** the area's own authentication scheme, where its specification sets one (the tool API's keys) */
  authScheme?: AuthScheme;
}
