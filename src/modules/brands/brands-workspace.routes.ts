/**
 * Workspace setup from the dashboard: creating brands and products (policy workspace.brands.create) and
 * editing them (workspace.brands.initialize: a brand's setup after it exists), with dashboard sessions,
 * enforced by the dashboard auth hook the identity area installs.
 */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requirePolicy, userActorOf } from '../../http/dashboard-auth.js';
import { errorResponses, IdOf, NullOr } from '../../http/shared-schemas.js';
import type { AppDeps } from '../app-deps.js';
import { BrandParams } from './brands.schemas.js';
import type { BrandsService } from './brands.service.js';

const BrandCreateRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 120, description: 'Default: derived from the name.' })),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone; default UTC.' })),
  },
  { $id: 'BrandCreateRequest', additionalProperties: false },
);
const ProductCreateRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    productUrl: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
    storeProductId: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  },
  { $id: 'BrandProductCreateRequest', additionalProperties: false },
);
const BrandUpdateRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Berlin.' })),
  },
  { $id: 'BrandUpdateRequest', additionalProperties: false, minProperties: 1 },
);
const ProductUpdateRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    productUrl: Type.Optional(NullOr(Type.String({ maxLength: 2048 }))),
    storeProductId: Type.Optional(NullOr(Type.String({ maxLength: 200 }))),
  },
  { $id: 'BrandProductUpdateRequest', additionalProperties: false, minProperties: 1 },
);
const ProductParams = Type.Object({ ...BrandParams.properties, productId: IdOf('prd') }, { additionalProperties: false });
const security: Array<Record<string, string[]>> = [{ dashboardSessionCookie: [] }, { dashboardSession: [] }];
const errors = errorResponses('invalid_request', 'dashboard_session_required', 'permission_denied', 'internal_server_error');

export function registerWorkspaceRoutes(root: FastifyInstance, brands: BrandsService, deps: Pick<AppDeps, 'clock'>): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/v1/brands',
    {
      config: { ...requirePolicy('workspace.brands.create'), validationCode: 'invalid_public_brand_request' },
      schema: {
        operationId: 'createBrand',
        tags: ['Brands'],
        summary: 'Create a brand (dashboard admins)',
        security,
        body: BrandCreateRequest,
        response: { 201: Type.Ref('Brand'), ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await brands.create(userActorOf(request).organizationId, request.body, deps.clock.now())),
  );
  app.post(
    '/v1/brands/:brandId/products',
    {
      config: { ...requirePolicy('workspace.brands.create'), validationCode: 'invalid_public_brand_request' },
      schema: {
        operationId: 'createBrandProduct',
        tags: ['Brands'],
        summary: 'Add a product to a brand (dashboard admins)',
        security,
        params: BrandParams,
        body: ProductCreateRequest,
        response: { 201: Type.Ref('BrandProduct'), ...errors, ...errorResponses('brand_not_found') },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await brands.createProduct(userActorOf(request).organizationId, request.params.brandId, request.body, deps.clock.now())),
  );
  app.patch(
    '/v1/brands/:brandId',
    {
      config: { ...requirePolicy('workspace.brands.initialize'), validationCode: 'invalid_public_brand_request' },
      schema: {
        operationId: 'updateBrand',
        tags: ['Brands'],
        summary: 'Rename a brand or change its time zone (dashboard admins)',
        description: "The time zone is the one the brand's calendar and batch posting times are read in.",
        security,
        params: BrandParams,
        body: BrandUpdateRequest,
        response: { 200: Type.Ref('Brand'), ...errors, ...errorResponses('brand_not_found') },
      },
    },
    async (request) => brands.update(userActorOf(request).organizationId, request.params.brandId, request.body, deps.clock.now()),
  );
  app.patch(
    '/v1/brands/:brandId/products/:productId',
    {
      config: { ...requirePolicy('workspace.brands.initialize'), validationCode: 'invalid_public_brand_request' },
      schema: {
        operationId: 'updateBrandProduct',
        tags: ['Brands'],
        summary: "Change a product's name, link or store id (dashboard admins)",
        security,
        params: ProductParams,
        body: ProductUpdateRequest,
        response: { 200: Type.Ref('BrandProduct'), ...errors, ...errorResponses('brand_not_found') },
      },
    },
    async (request) =>
      brands.updateProduct(
        userActorOf(request).organizationId,
        request.params.brandId,
        request.params.productId,
        request.body,
        deps.clock.now(),
      ),
  );
}
