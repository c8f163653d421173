/** The brands area: brands and their products. */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { AppDeps } from '../app-deps.js';
import type { Executor } from '../database.js';
import { brandsRepository } from './brands.repository.js';
import { registerBrandRoutes } from './brands.routes.js';
import { Brand, BrandProduct } from './brands.schemas.js';
import { BrandsService } from './brands.service.js';
import { registerWorkspaceRoutes } from './brands-workspace.routes.js';

/** A brand's name and slug, as other areas' answers show them beside a brand id. */
export interface BrandName {
  name: string;
  slug: string;
}

/** What other areas (publishing, batches, channels, profiles, comments, analytics, automations, media) read of brands; each read takes the caller's executor. */
export interface BrandsReadPort {
  /** The brand's id and time zone, null when the organization has no such brand (also the existence check). */
  brand(db: Executor, organizationId: string, brandId: string): Promise<{ id: string; timezone: string } | null>;
  /** Name and slug of the organization's brands among `ids` (unknown ids are absent). */
  names(db: Executor, organizationId: string, ids: ReadonlyArray<string | null>): Promise<Map<string, BrandName>>;
  /** Whether the brand has the product. */
  hasProduct(db: Executor, organizationId: string, brandId: string, productId: string): Promise<boolean>;
  /** The brand's products of the ids (ids it has not are left out). */
  products(
    db: Executor,
    organizationId: string,
    brandId: string,
    ids: string[],
  ): Promise<Array<{ id: string; name: string; productUrl: string | null }>>;
  /** All the brand's products in id (creation) order. */
  allProducts(
    db: Executor,
    organizationId: string,
    brandId: string,
  ): Promise<Array<{ id: string; name: string; productUrl: string | null }>>;
}

const brandsReadPort: BrandsReadPort = {
  brand: brandsRepository.zoneOf,
  names: brandsRepository.namesOf,
  hasProduct: brandsRepository.hasProduct,
  products: brandsRepository.productsOf,
  async allProducts(db, organizationId, brandId) {
    const rows = await brandsRepository.productsFor(db, organizationId, [brandId]);
    return rows.map((p) => ({ id: p.id, name: p.name, productUrl: p.product_url }));
  },
};

export interface BrandsModule extends AreaModule<BrandsReadPort> {
  service: BrandsService;
}

export function createBrandsModule(ports: Pick<AppDeps, 'database' | 'clock'>): BrandsModule {
  const service = new BrandsService(ports.database.db);
  return {
    service,
    read: brandsReadPort,
    jobs: [],
    routes(app: FastifyInstance) {
      app.addSchema(BrandProduct);
      app.addSchema(Brand);
      registerBrandRoutes(app, service);
      registerWorkspaceRoutes(app, service, ports);
    },
  };
}
