/** Wires analytics once per deps: the service (API and the periodic sync job). */
import type { AppDeps } from '../../app-deps.js';
import { AnalyticsService } from './analytics.service.js';

export interface AnalyticsModule {
  service: AnalyticsService;
}

const modules = new WeakMap<AppDeps, AnalyticsModule>();

export function analyticsModule(deps: AppDeps): AnalyticsModule {
  const existing = modules.get(deps);
  if (existing) return existing;
  const m = { service: new AnalyticsService(deps) };
  modules.set(deps, m);
  return m;
}
