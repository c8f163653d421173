import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { organizationOf, publicOrDashboard } from '../../http/dashboard-auth.js';
import { errorResponses, PUBLIC_AUTH_ERRORS, PUBLIC_OR_SESSION, SESSION_AUTH_ERRORS } from '../../http/shared-schemas.js';
import { Brand, BrandList, BrandListQuery, BrandParams } from './brands.schemas.js';
import type { BrandsService } from './brands.service.js';

export function registerBrandRoutes(root: FastifyInstance, brands: BrandsService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/brands',
    {
      config: { ...publicOrDashboard('brands:read', 'publishing.jobs.read'), validationCode: 'invalid_public_brand_query' },
      schema: {
        operationId: 'listBrands',
        tags: ['Brands'],
        summary: "List the organization's brands",
        security: PUBLIC_OR_SESSION,
        querystring: BrandListQuery,
        response: { 200: BrandList, ...errorResponses(...SESSION_AUTH_ERRORS, 'invalid_public_brand_query', ...PUBLIC_AUTH_ERRORS) },
      },
    },
    async (request) => brands.list(organizationOf(request), request.query),
  );

  app.get(
    '/v1/brands/:brandId',
    {
      config: { ...publicOrDashboard('brands:read', 'publishing.jobs.read'), validationCode: 'invalid_public_brand_query' },
      schema: {
        operationId: 'getBrand',
        tags: ['Brands'],
        summary: 'Get a brand with its products',
        security: PUBLIC_OR_SESSION,
        params: BrandParams,
        response: {
          200: Brand,
          ...errorResponses(...SESSION_AUTH_ERRORS, 'brand_not_found', 'invalid_public_brand_query', ...PUBLIC_AUTH_ERRORS),
        },
      },
    },
    async (request) => brands.get(organizationOf(request), request.params.brandId),
  );
}
