/**
 * Organizations, users, memberships and API keys. Bootstrap creates all four in one transaction, so a
 * failed bootstrap leaves nothing behind.
 */

import { PUBLIC_SCOPES } from '../../http/principal.js';
import { commaList } from '../../platform/comma-list.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { generateKey } from '../../platform/secrets/api-key-secret.js';
import { hashPassword } from '../../platform/secrets/password.js';
import { assertPasswordAllowed } from '../../platform/secrets/password-policy.js';
import type { Db, Executor } from '../database.js';
import { type ApiKeyRecord, apiKeysRepository } from './api-keys.repository.js';
import { identityRepository } from './identity.repository.js';
import { identityProviderRepository } from './identity-provider.repository.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function parseScopes(list: string | undefined): string[] {
  if (!list) return [...PUBLIC_SCOPES];
  const scopes = commaList(list);
  const unknown = scopes.filter((s) => !(PUBLIC_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0)
    throw new AppError('invalid_request', { message: `Unknown scope(s): ${unknown.join(', ')}. Known: ${PUBLIC_SCOPES.join(', ')}.` });
  if (scopes.length === 0) throw new AppError('invalid_request', { message: 'At least one scope is required.' });
  return scopes;
}

export class IdentityService {
  constructor(private readonly db: Db) {}

  async createApiKey(tx: Executor, input: { organizationId: string; name?: string; scopes: string[]; createdByUserId?: string | null }) {
    if (!(await identityRepository.organizationExists(tx, input.organizationId))) {
      throw new AppError('invalid_request', { message: `No organization ${input.organizationId}.` });
    }
    const { key, prefix, hash } = generateKey('sk');
    const id = newId('key');
    await apiKeysRepository.insert(tx, {
      id,
      organizationId: input.organizationId,
      name: input.name?.trim() || 'API key',
      prefix,
      secretHash: hash,
      scopes: input.scopes,
      createdByUserId: input.createdByUserId ?? null,
    });
    return { apiKeyId: id, apiKey: key, prefix, scopes: input.scopes, organizationId: input.organizationId };
  }

  async bootstrap(input: { organization: string; email: string; password: string }, at: Date) {
    const organization = input.organization.trim();
    if (!organization || organization.length > 120)
      throw new AppError('invalid_request', { message: '--organization must be 1 to 120 characters.' });
    if (!EMAIL.test(input.email)) throw new AppError('invalid_request', { message: `--email ${input.email} is not an email address.` });
    await assertPasswordAllowed(input.password, '--password');
    const passwordHash = await hashPassword(input.password);
    return this.db.transaction().execute(async (tx) => {
      if (await identityRepository.findUserByEmail(tx, input.email)) {
        throw new AppError('invalid_request', { message: `A user with email ${input.email} exists already.` });
      }
      const organizationId = newId('org');
      const userId = newId('usr');
      await identityRepository.insertOrganization(tx, { id: organizationId, name: organization, at });
      await identityRepository.insertUser(tx, { id: userId, email: input.email, passwordHash, at });
      await identityRepository.insertMembership(tx, { organizationId, userId, role: 'owner' });
      const key = await this.createApiKey(tx, { organizationId, name: 'bootstrap', scopes: [...PUBLIC_SCOPES], createdByUserId: userId });
      return { organizationId, userId, apiKey: key.apiKey, apiKeyId: key.apiKeyId };
    });
  }

  /** A user with a password, member of an existing organization (so a fresh install can sign in). */
  async createUser(input: { organizationId: string; email: string; password: string; role: 'member' | 'admin' | 'owner' }, at: Date) {
    if (!EMAIL.test(input.email)) throw new AppError('invalid_request', { message: `--email ${input.email} is not an email address.` });
    await assertPasswordAllowed(input.password, '--password');
    const passwordHash = await hashPassword(input.password);
    return this.db.transaction().execute(async (tx) => {
      if (!(await identityRepository.organizationExists(tx, input.organizationId)))
        throw new AppError('invalid_request', { message: `No organization ${input.organizationId}.` });
      if (await identityRepository.findUserByEmail(tx, input.email))
        throw new AppError('invalid_request', { message: `A user with email ${input.email} exists already.` });
      const userId = newId('usr');
      await identityRepository.insertUser(tx, { id: userId, email: input.email, passwordHash, at });
      await identityRepository.insertMembership(tx, { organizationId: input.organizationId, userId, role: input.role });
      return { userId, organizationId: input.organizationId, email: input.email, role: input.role };
    });
  }

  async createApiKeyFor(input: { organizationId: string; name?: string; scopes: string[] }) {
    return this.db.transaction().execute((tx) => this.createApiKey(tx, input));
  }

  // the operator's commands (the CLI): listings and changes by organization id; an unknown organization is `invalid_request`

  async requireOrganization(organizationId: string): Promise<void> {
    if (!(await identityRepository.organizationExists(this.db, organizationId)))
      throw new AppError('invalid_request', { message: `No organization ${organizationId}.` });
  }

  async organizationCount(): Promise<number> {
    return identityRepository.countOrganizations(this.db);
  }

  /** Every organization with its count of active API keys: the one listing not scoped to an organization. */
  async organizations() {
    return identityRepository.listOrganizations(this.db);
  }

  /** The organization's API keys without their secret hashes. */
  async apiKeys(organizationId: string): Promise<Array<Omit<ApiKeyRecord, 'secretHash'>>> {
    await this.requireOrganization(organizationId);
    return (await apiKeysRepository.listForOrganization(this.db, organizationId)).map(({ secretHash: _, ...key }) => key);
  }

  /** false when the organization has no such active key */
  async revokeApiKey(organizationId: string, apiKeyId: string, at: Date): Promise<boolean> {
    await this.requireOrganization(organizationId);
    return apiKeysRepository.revoke(this.db, organizationId, apiKeyId, at);
  }

  /** People with a verified email of the domain and no account join the organization at their first OpenID Connect sign-in. */
  async allowDomain(input: { organizationId: string; emailDomain: string; role: string }, at: Date): Promise<void> {
    await this.requireOrganization(input.organizationId);
    await identityProviderRepository.setJoinRule(this.db, { ...input, at });
  }

  async removeDomain(organizationId: string, emailDomain: string): Promise<boolean> {
    return identityProviderRepository.removeJoinRule(this.db, organizationId, emailDomain);
  }
}
