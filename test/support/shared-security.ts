/**
 * The security checks every authenticated route must pass, driven by the OpenAPI document: each
 * operation with a security requirement is called without a credential, with another organization's
 * credential, with a key lacking its scope, with a revoked key and with a session whose role does not
 * reach its policy. The operation's `x-scope` and `x-policy` (src/http/openapi.ts) say what it needs;
 * the caller gives the ids to put in its path (`SecurityFixtures`).
 */
import assert from 'node:assert/strict';
import { POLICIES, type PolicyId } from '../../src/modules/identity/policies.js';
import { ERROR_CATALOG, type ErrorCode } from '../../src/platform/errors.js';
import type { TestContext } from './harness.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface SecuredOperation {
  method: Method;
  /** as documented: `/v1/brands/{brandId}` */
  path: string;
  operationId: string;
  schemes: Set<string>;
  /** the public scope (`x-scope`), when the operation takes an API key */
  scope?: string;
  /** the dashboard policy (`x-policy`), when the operation takes a session or a service token */
  policy?: PolicyId;
  /** the `{name}`s of the path */
  params: string[];
  hasBody: boolean;
}

/** Credentials presented as request headers. */
export type Credential = Record<string, string>;

export interface SecurityFixtures {
  /** a value for every path parameter; `owned`: the resource belongs to the first organization */
  ids: Record<string, { value: string; owned: boolean }>;
  /** a valid body per operationId, so another organization's call reaches the lookup (not the validation) */
  bodies: Record<string, unknown>;
  /** operations that answer without a credential by design, with the reason */
  credentialOptional?: Record<string, string>;
  /** the first organization's credentials */
  own: { revokedKey: Credential; keyWithout(scope: string): Promise<Credential>; memberSession: Credential; ownerSession: Credential };
  /** the other organization's credentials (every scope; owner role) */
  other: { key: Credential; ownerSession: Credential };
}

/** The schemes this suite knows; an operation with any other scheme fails the suite until it is taught. */
const KNOWN_SCHEMES = new Set([
  'publicBearer',
  'dashboardSessionCookie',
  'dashboardSession',
  'internalServiceToken',
  'servicePrincipalToken',
]);

/**
 * The operations of the document that declare a credential. Operations on separate machinery (the tool
 * API's keys, the browser-session exchange cookie) are answered in `excluded` so the caller states them.
 */
export function securedOperations(doc: { paths: Record<string, Record<string, Record<string, unknown>>> }): {
  operations: SecuredOperation[];
  excluded: string[];
} {
  const operations: SecuredOperation[] = [];
  const excluded: string[] = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) {
      const security = (op.security ?? []) as Record<string, string[]>[];
      const schemes = new Set(security.flatMap((s) => Object.keys(s)));
      if (schemes.size === 0) continue;
      const name = `${method.toUpperCase()} ${path}`;
      if (![...schemes].some((s) => KNOWN_SCHEMES.has(s))) {
        excluded.push(name);
        continue;
      }
      const unknown = [...schemes].filter((s) => !KNOWN_SCHEMES.has(s));
      assert.deepEqual(unknown, [], `${name}: security schemes the shared security suite does not know`);
      operations.push({
        method: method.toUpperCase() as Method,
        path,
        operationId: String(op.operationId ?? name),
        schemes,
        scope: op['x-scope'] as string | undefined,
        policy: op['x-policy'] as PolicyId | undefined,
        params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
        hasBody: op.requestBody !== undefined,
      });
    }
  return { operations, excluded };
}

const takesKey = (op: SecuredOperation) => op.schemes.has('publicBearer');
const takesSession = (op: SecuredOperation) => op.schemes.has('dashboardSessionCookie') || op.schemes.has('dashboardSession');
const rule = (op: SecuredOperation) => (op.policy ? POLICIES[op.policy] : undefined);

function expectError(res: { statusCode: number; body: string }, code: ErrorCode, what: string): void {
  const status = ERROR_CATALOG[code].status;
  assert.equal(res.statusCode, status, `${what}: expected ${status} ${code}, got ${res.statusCode} ${res.body.slice(0, 300)}`);
  assert.equal(JSON.parse(res.body).error, code, `${what}: ${res.body.slice(0, 300)}`);
}

/** Runs the shared checks on one operation; each check names the operation and the case on failure. */
export async function runSharedSecurityChecks(ctx: TestContext, op: SecuredOperation, f: SecurityFixtures): Promise<void> {
  const name = `${op.method} ${op.path}`;
  const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = f.ids[name];
    assert.ok(id, `${op.method} ${op.path}: add a value for {${name}} to the shared security fixtures`);
    return encodeURIComponent(id.value);
  });
  const call = (headers: Credential, body?: unknown) =>
    ctx.app.inject({
      method: op.method,
      url,
      headers,
      ...(op.hasBody ? { payload: (body ?? {}) as Record<string, unknown> } : {}),
    });
  const policy = rule(op);

  // 1. no credential: 401 naming the credential the route takes (a signed media URL is not a credential)
  const none = await call({});
  if (f.credentialOptional?.[name]) assert.ok(none.statusCode < 300, `${name} without a credential: ${none.statusCode}`);
  else if (takesKey(op)) expectError(none, 'public_api_token_required', `${name} without a credential`);
  else if (takesSession(op) && !policy?.internalOnly) expectError(none, 'dashboard_session_required', `${name} without a credential`);
  else expectError(none, 'internal_token_required', `${name} without a credential`);

  // 2. another organization's credential: never the first organization's data
  const owned = op.params.filter((p) => f.ids[p]!.owned);
  const foreignCredential = takesKey(op) ? f.other.key : takesSession(op) && !policy?.internalOnly ? f.other.ownerSession : null;
  if (foreignCredential && (owned.length > 0 || op.method === 'GET')) {
    const res = await call(foreignCredential, f.bodies[op.operationId]);
    if (owned.length > 0) {
      assert.equal(res.statusCode, 404, `${name} with another organization's credential: ${res.statusCode} ${res.body.slice(0, 300)}`);
      assert.equal(ERROR_CATALOG[JSON.parse(res.body).error as ErrorCode]?.category, 'not_found', `${name}: ${res.body.slice(0, 300)}`);
    }
    // a 404 may name the id it was asked for; an answer with data must not hold any of the first organization's
    if (res.statusCode < 300)
      for (const [param, id] of Object.entries(f.ids))
        if (id.owned) assert.ok(!res.body.includes(id.value), `${name} with another organization's credential shows its ${param}`);
  }

  if (takesKey(op)) {
    // 3. a key of the organization without the route's scope
    if (op.scope && op.scope !== 'any')
      expectError(await call(await f.own.keyWithout(op.scope)), 'public_api_token_forbidden', `${name} with a key lacking ${op.scope}`);
    // 4. a revoked key
    expectError(await call(f.own.revokedKey), 'public_api_token_forbidden', `${name} with a revoked key`);
  }

  // 5. a session whose role does not reach the policy (any session on an internal-only policy)
  if (policy && (takesSession(op) || policy.internalOnly) && (policy.internalOnly || policy.minimumRole !== 'member')) {
    const session = policy.internalOnly ? f.own.ownerSession : f.own.memberSession;
    expectError(await call(session), 'permission_denied', `${name} with a session below ${policy.minimumRole}`);
  }
}
