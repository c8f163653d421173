import assert from 'node:assert/strict';
import { identityRepository } from '../../src/modules/identity/identity.repository.js';
import { newId } from '../../src/platform/ids.js';
import { hashPassword } from '../../src/platform/secrets/password.js';
import type { TestContext } from './harness.js';

export const DASHBOARD = 'https://dash.example.test';
export const INTERNAL_TOKEN = 'internal-token-for-tests-0123456789';
export const PRINCIPAL_TOKEN = 'principal-token-for-tests-0123456789';
export const AUTH_ENV = {
  SERVICE_DASHBOARD_ORIGINS: DASHBOARD,
  SERVICE_INTERNAL_TOKEN: INTERNAL_TOKEN,
  SERVICE_PRINCIPAL_TOKEN: PRINCIPAL_TOKEN,
};
export const PASSWORD = 'correct horse battery';

/** A user with a password and the given role in the organization. */
export async function addMember(ctx: TestContext, organizationId: string, role: 'member' | 'admin' | 'owner') {
  const userId = newId('usr');
  const email = `${role}-${userId.slice(-8).toLowerCase()}@example.test`;
  await identityRepository.insertUser(ctx.database.db, { id: userId, email, passwordHash: await hashPassword(PASSWORD), at: new Date() });
  await identityRepository.insertMembership(ctx.database.db, { organizationId, userId, role });
  return { userId, email };
}

export function setCookies(res: { headers: Record<string, unknown> }): string[] {
  const v = res.headers['set-cookie'];
  return v === undefined ? [] : Array.isArray(v) ? (v as string[]) : [v as string];
}

export function cookieValue(setCookie: string[], name: string): string | undefined {
  const line = setCookie.find((c) => c.startsWith(`${name}=`));
  return line ? line.slice(name.length + 1).split(';')[0] : undefined;
}

/** Signs in through start + exchange; answers the dashboard session token (the cookie's value). */
export async function signIn(ctx: TestContext, email: string, password = PASSWORD): Promise<string> {
  const start = await ctx.app.inject({
    method: 'POST',
    url: '/v1/auth/browser-session/start',
    headers: { origin: DASHBOARD },
    payload: { email, password },
  });
  assert.equal(start.statusCode, 200, start.body);
  const binding = cookieValue(setCookies(start), 'service_browser_session_exchange')!;
  const { authorizationCode, nonce } = start.json();
  const ex = await ctx.app.inject({
    method: 'POST',
    url: '/v1/auth/browser-session/exchange',
    headers: { origin: DASHBOARD, cookie: `service_browser_session_exchange=${binding}` },
    payload: { authorizationCode, nonce },
  });
  assert.equal(ex.statusCode, 200, ex.body);
  return cookieValue(setCookies(ex), 'service_dashboard_session')!;
}

/** Headers of a new signed-in dashboard user of that role: the session cookie and the approved Origin. */
export async function sessionHeaders(ctx: TestContext, organizationId: string, role: 'member' | 'admin' | 'owner' = 'admin') {
  const session = await signIn(ctx, (await addMember(ctx, organizationId, role)).email);
  return { cookie: `service_dashboard_session=${session}`, origin: DASHBOARD };
}
