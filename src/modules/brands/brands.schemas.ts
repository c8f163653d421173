import { type Static, Type } from '@sinclair/typebox';
import { IdOf, ListOf, Nullable, PaginationQuery } from '../../http/shared-schemas.js';

export const BrandProduct = Type.Object(
  {
    productId: Type.String(),
    brandId: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    productUrl: Nullable(Type.String()),
    storeProductId: Nullable(Type.String({ description: 'identifier of the product in the connected online store' })),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'BrandProduct', additionalProperties: false },
);

export const Brand = Type.Object(
  {
    brandId: Type.String(),
    organizationId: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    timezone: Type.String({ description: 'IANA time zone' }),
    productCount: Type.Integer({ minimum: 0 }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    products: Type.Optional(Type.Array(Type.Unsafe<Static<typeof BrandProduct>>(Type.Ref('BrandProduct')))),
  },
  { $id: 'Brand', additionalProperties: false },
);

export const BrandListQuery = Type.Object(
  {
    includeProducts: Type.Optional(Type.Boolean({ default: false, description: "Embed each brand's products." })),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 120, description: 'Only the brand with this slug.' })),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);

export const BrandParams = Type.Object({ brandId: IdOf('brd') }, { additionalProperties: false });
export const BrandList = ListOf(Type.Ref('Brand'), undefined, 'BrandList');

export type BrandT = Static<typeof Brand>;
export type BrandProductT = Static<typeof BrandProduct>;
export type BrandListQueryT = Static<typeof BrandListQuery>;
