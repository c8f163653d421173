import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/public-auth.js';
import { errorResponses, PUBLIC_AUTH_ERRORS } from '../../http/shared-schemas.js';
import { Brand, BrandList, BrandListQuery, BrandParams } from './brands.schemas.js';
import type { BrandsService } from './brands.service.js';

export function registerBrandRoutes(root: FastifyInstance, brands: BrandsService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/brands',
    {
      config: { auth: { scope: 'brands:read' }, validationCode: 'invalid_public_brand_query' },
      schema: {
        operationId: 'listBrands',
        tags: ['Brands'],
        summary: "List the organization's brands",
        security: [{ publicBearer: [] }],
        querystring: BrandListQuery,
        response: { 200: BrandList, ...errorResponses('invalid_public_brand_query', ...PUBLIC_AUTH_ERRORS) },
      },
    },
    async (request) => brands.list(principalOf(request).organizationId, request.query),
  );

  app.get(
    '/v1/brands/:brandId',
    {
      config: { auth: { scope: 'brands:read' }, validationCode: 'invalid_public_brand_query' },
      schema: {
        operationId: 'getBrand',
        tags: ['Brands'],
        summary: 'Get a brand with its products',
        security: [{ publicBearer: [] }],
        params: BrandParams,
        response: { 200: Brand, ...errorResponses('brand_not_found', 'invalid_public_brand_query', ...PUBLIC_AUTH_ERRORS) },
      },
    },
    async (request) => brands.get(principalOf(request).organizationId, request.params.brandId),
  );
}
