import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { organizationOf, publicOrDashboard } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
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
        querystring: BrandListQuery,
        response: { 200: BrandList, ...errorResponses('invalid_public_brand_query') },
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
        params: BrandParams,
        response: {
          200: Brand,
          ...errorResponses('brand_not_found', 'invalid_public_brand_query'),
        },
      },
    },
    async (request) => brands.get(organizationOf(request), request.params.brandId),
  );
}
