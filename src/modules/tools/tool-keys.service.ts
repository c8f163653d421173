/** Users' membership tiers and their tool API keys (the CLI's `users` and `tool-keys` commands). */
import { commaList } from '../../platform/comma-list.js';
import type { CounterStore } from '../../platform/counters/index.js';
import { type ChannelListener, notifyChannel } from '../../platform/db/channel-listener.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { Db } from '../database.js';
import type { UsersAdminPort, UsersReadPort } from '../identity/identity.module.js';
import { maskToolKey, newToolApiKey } from './tool-api-key.rules.js';
import { bumpToolAuthVersion, TOOL_AUTH_CHANNEL } from './tool-auth-cache.js';
import { toolKeysRepository } from './tool-keys.repository.js';
import { isKnownScope, type MembershipTier, TOOL_SCOPES, TOOL_WILDCARD_SCOPE } from './tool-limits.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TIERS: readonly MembershipTier[] = ['basic', 'pro', 'max'];

export function parseTier(value: string | undefined, fallback: MembershipTier): MembershipTier {
  if (value === undefined) return fallback;
  const tier = value.trim().toLowerCase();
  if (!(TIERS as readonly string[]).includes(tier)) {
    throw new AppError('invalid_request', { message: `Unknown tier "${value}"; use basic, pro or max.` });
  }
  return tier as MembershipTier;
}

/** Default: every tool scope. `tools:*` and `tools:<tool>:*` are accepted wildcards. */
export function parseToolScopes(list: string | undefined): string[] {
  if (list === undefined) return Object.values(TOOL_SCOPES);
  const scopes = commaList(list);
  const unknown = scopes.filter((s) => !isKnownScope(s));
  if (unknown.length > 0) {
    const known = [...Object.values(TOOL_SCOPES), TOOL_WILDCARD_SCOPE].join(', ');
    throw new AppError('invalid_request', { message: `Unknown scope(s): ${unknown.join(', ')}. Known: ${known}.` });
  }
  if (scopes.length === 0) throw new AppError('invalid_request', { message: 'At least one scope is required.' });
  return scopes;
}

export class ToolKeysService {
  /**
   * `authVersion`: the in-process counter store an embedded server's auth cache reads (null elsewhere: a
   * server on PostgreSQL listens for the notification every change sends; an embedded server is also told
   * of writes made through its database socket). `users`: the identity area's users, which own the keys and
   * carry the tier.
   */
  constructor(
    private readonly db: Db,
    private readonly authVersion: CounterStore | null,
    private readonly users: UsersReadPort & UsersAdminPort,
    /** this process's listener (a server on PostgreSQL): its own next request must not wait for the notification */
    private readonly listener: Pick<ChannelListener, 'changed'> | null = null,
  ) {}

  /**
   * After the commit: the next tool request of this process reads the key and tier again, and the other
   * servers' as soon as the notification reaches them (within a round trip to the database).
   */
  private async invalidateAuth(): Promise<void> {
    this.listener?.changed();
    await notifyChannel(this.db, TOOL_AUTH_CHANNEL);
    if (this.authVersion) await bumpToolAuthVersion(this.authVersion);
  }

  private async userByEmail(email: string) {
    const user = await this.users.byEmail(this.db, email);
    if (!user) throw new AppError('invalid_request', { message: `No user with email ${email}.` });
    return user;
  }

  async createUser(input: { email: string; tier: MembershipTier }, at: Date) {
    const email = input.email.trim();
    if (!EMAIL.test(email)) throw new AppError('invalid_request', { message: `--email ${email} is not an email address.` });
    return this.db.transaction().execute(async (tx) => {
      if (await this.users.byEmail(tx, email)) {
        throw new AppError('invalid_request', { message: `A user with email ${email} exists already.` });
      }
      const userId = newId('usr');
      await this.users.create(tx, { id: userId, email, tier: input.tier, at });
      return { userId, email, tier: input.tier };
    });
  }

  async setTier(input: { email: string; tier: MembershipTier }, at: Date) {
    const user = await this.userByEmail(input.email);
    await this.users.setTier(this.db, user.id, input.tier, at);
    await this.invalidateAuth();
    return { userId: user.id, email: user.email, tier: input.tier, previousTier: user.tier };
  }

  /** The full key is returned here only; listings show the masked form. */
  async createKey(input: { email: string; scopes: string[]; name?: string }, at: Date) {
    const user = await this.userByEmail(input.email);
    const key = newToolApiKey();
    const id = newId('tkey');
    await toolKeysRepository.insert(this.db, {
      id,
      userId: user.id,
      name: input.name?.trim() || 'Tool API key',
      prefix: key.prefix,
      lastFour: key.lastFour,
      secretHash: key.hash,
      scopes: input.scopes,
      at,
    });
    return { apiKey: key.key, apiKeyId: id, userId: user.id, prefix: key.prefix, scopes: input.scopes, tier: user.tier };
  }

  async listKeys(email: string) {
    return (await this.keysOf(email)).keys;
  }

  /** A user's tier and masked keys (the dashboard's settings page and the CLI's list). */
  async keysOf(email: string) {
    const user = await this.userByEmail(email);
    const keys = await toolKeysRepository.listByUser(this.db, user.id);
    return {
      tier: user.tier,
      keys: keys.map((k) => ({
        apiKeyId: k.id,
        name: k.name,
        maskedKey: maskToolKey(k.prefix, k.lastFour),
        scopes: k.scopes,
        status: k.revokedAt ? 'revoked' : 'active',
        lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
        revokedAt: k.revokedAt?.toISOString() ?? null,
        createdAt: k.createdAt.toISOString(),
      })),
    };
  }

  /** A user's own key, revoked from the dashboard's settings: another user's key is "not found". */
  async revokeOwnKey(userId: string, id: string, at: Date) {
    if ((await toolKeysRepository.ownerOf(this.db, id)) !== userId) {
      throw new AppError('tool_api_key_not_found', { message: `You have no tool API key ${id}.` });
    }
    return this.revokeKey(id, at);
  }

  async revokeKey(id: string, at: Date) {
    if (await toolKeysRepository.revoke(this.db, id, at)) {
      await this.invalidateAuth();
      return { apiKeyId: id, revoked: true };
    }
    if (await toolKeysRepository.exists(this.db, id)) return { apiKeyId: id, revoked: true, alreadyRevoked: true };
    throw new AppError('invalid_request', { message: `No tool API key ${id}.` });
  }
}
