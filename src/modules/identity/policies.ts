/** The specification's dashboard permission policy table (minimum role, service principal, internal only). */
import type { DashboardAuthPort } from '../../http/dashboard-auth.js';

export type Role = 'member' | 'admin' | 'owner';

const ROLE_RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

export interface PolicyRule {
  minimumRole: Role;
  /** x-service-internal-token / x-service-principal-token accepted */
  servicePrincipal: boolean;
  /** dashboard sessions refused: only the service tokens */
  internalOnly: boolean;
}

const rule = (minimumRole: Role, servicePrincipal = false, internalOnly = false): PolicyRule => ({
  minimumRole,
  servicePrincipal,
  internalOnly,
});

export const POLICIES = {
  'workspace.brands.initialize': rule('admin'),
  'workspace.brands.create': rule('admin'),
  'publishing.drafts.manage': rule('member'),
  'developer.api_keys.manage': rule('admin'),
  'developer.oauth_apps.manage': rule('admin'),
  'developer.oauth_grants.manage': rule('admin'),
  'developer.oauth_tokens.exchange': rule('admin'),
  'publishing.jobs.read': rule('member'),
  'publishing.batches.manage': rule('admin'),
  'publishing.queue.reconcile': rule('admin'),
  'publishing.urls.reconcile': rule('admin'),
  'publishing.results.manage': rule('admin'),
  'analytics.provider_sync.manage': rule('admin'),
  'engagement.comments.manage': rule('admin'),
  'webhooks.endpoints.manage': rule('admin'),
  'webhooks.deliveries.manage': rule('admin'),
  'automations.sources.manage': rule('admin'),
  'automations.scheduler.enqueue': rule('admin', true),
  'admin.db.migrate': rule('admin', true, true),
  'admin.provider.webhook.provision': rule('admin', true, true),
  // added by this service: any signed-in member (GET /v1/me, OAuth consent display)
  'dashboard.session': rule('member'),
  // added by this service: GET /v1/internal/metrics (operational scrapers only)
  'admin.metrics.read': rule('admin', true, true),
} as const satisfies Record<string, PolicyRule>;

export type PolicyId = keyof typeof POLICIES;

const SERVICE_POLICY_IDS = new Set<string>(['dashboard.session', 'admin.metrics.read']);

/** The rows of the specification's table (without this service's additions). */
export const SPEC_POLICY_IDS = (Object.keys(POLICIES) as PolicyId[]).filter((p) => !SERVICE_POLICY_IDS.has(p));

export function isRole(value: string): value is Role {
  return value === 'member' || value === 'admin' || value === 'owner';
}

function roleReaches(role: string, minimum: Role): role is Role {
  return isRole(role) && ROLE_RANK[role] >= ROLE_RANK[minimum];
}

/** The policies a dashboard session with this role passes (internal-only rows never). */
export function policiesOf(role: string): PolicyId[] {
  return (Object.keys(POLICIES) as PolicyId[]).filter((p) => !POLICIES[p].internalOnly && roleReaches(role, POLICIES[p].minimumRole));
}

/** The policy table as the dashboard authorization hook (http/dashboard-auth.ts) reads it. */
export function dashboardPolicies(resolveSession: DashboardAuthPort['resolveSession']): DashboardAuthPort {
  return { rule: (policy) => POLICIES[policy], roleReaches, resolveSession };
}

type TablePolicyId = PolicyId;
type TableRole = Role;

declare module '../../http/dashboard-auth.js' {
  interface DashboardPolicyRegistry {
    policy: TablePolicyId;
    role: TableRole;
  }
}
