/** The brands area: brands and their products. */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { AreaModule } from '../../http/area-module.js';
import { registerBrandRoutes } from './brands.routes.js';
import { Brand, BrandProduct } from './brands.schemas.js';
import { BrandsService } from './brands.service.js';

export interface BrandsModule extends AreaModule {
  service: BrandsService;
}

export function createBrandsModule(ports: Pick<AppDeps, 'database'>): BrandsModule {
  const service = new BrandsService(ports.database.db);
  return {
    service,
    read: undefined,
    jobs: [],
    routes(app: FastifyInstance) {
      app.addSchema(BrandProduct);
      app.addSchema(Brand);
      registerBrandRoutes(app, service);
    },
  };
}
