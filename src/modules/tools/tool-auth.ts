/**
 * Tool API authentication, in this order: credential present (401 authentication_required) -> known,
 * matching, unrevoked key (401 invalid_api_key) -> owner's tier has API access (403 membership_required)
 * -> key scope covers the tool (403 insufficient_scope). The key and tier come from a short-lived cache that
 * every tier change and revocation invalidates (tool-auth-cache.ts), so a change applies to the next request.
 */
import type { FastifyRequest } from 'fastify';
import type { AuthScheme } from '../../http/auth-scheme.js';
import { AppError } from '../../platform/errors.js';
import type { Db } from '../database.js';
import { credentialFromHeaders, digestMatches, toolKeyPrefix } from './tool-api-key.rules.js';
import type { ToolAuthCache } from './tool-auth-cache.js';
import { type ToolKeyRecord, toolKeysRepository } from './tool-keys.repository.js';
import { type MembershipTier, scopeAllows, type TierLimits, TOOL_SCOPES, type ToolName, tierLimits } from './tool-limits.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** set by the tool scheme on the tool API's routes */
    toolPrincipal: ToolPrincipal | null;
  }
}

export interface ToolPrincipal {
  apiKeyId: string;
  userId: string;
  tier: MembershipTier;
  limits: TierLimits;
}

/** last_used_at is written at most this often per key, keeping writes off the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;
const LAST_USED_FLUSH_MS = 1_000;

/**
 * Collects the keys whose last use is due to be written and writes them in one statement a second
 * (a burst of keys then costs one write, not one each; on the embedded database a write holds the
 * event loop).
 */
export class LastUsedWriter {
  private readonly due = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    private readonly onError: (err: unknown) => void,
  ) {}

  add(id: string): void {
    this.due.add(id);
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, LAST_USED_FLUSH_MS).unref();
  }

  flush(): Promise<void> {
    const ids = [...this.due];
    this.due.clear();
    this.writing = this.writing.then(() => toolKeysRepository.touchLastUsed(this.db, ids, this.now()).catch(this.onError));
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}

/** The presented key and what it names, before the record is read (null prefix: not of a tool key's shape). */
function presentedKey(request: FastifyRequest): { credential: string; prefix: string | null } {
  const credential = credentialFromHeaders(request.headers);
  if (credential === null) {
    throw new AppError('authentication_required', { message: 'Send the API key as Authorization: Bearer <key> or X-API-Key: <key>.' });
  }
  return { credential, prefix: toolKeyPrefix(credential) };
}

/** The checks after the key's record is read, in the specification's order: key, membership, scope. */
function principalOf(record: ToolKeyRecord | null, credential: string, tool: ToolName, lastUsed: LastUsedWriter, now: Date): ToolPrincipal {
  if (!record || record.revokedAt !== null || !digestMatches(credential, record.secretHash)) {
    throw new AppError('invalid_api_key');
  }
  const limits = tierLimits(record.tier);
  if (!limits) {
    throw new AppError('membership_required', { message: "The key owner's Basic membership has no API access; upgrade to Pro or Max." });
  }
  if (!scopeAllows(record.scopes, tool)) {
    throw new AppError('insufficient_scope', { message: `The API key lacks the scope ${TOOL_SCOPES[tool]}.` });
  }
  if (!record.lastUsedAt || now.getTime() - record.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    // the cached record remembers it, so the key is queued once a minute, not on every request
    record.lastUsedAt = now;
    lastUsed.add(record.id);
  }
  return { apiKeyId: record.id, userId: record.userId, tier: record.tier as MembershipTier, limits };
}

/** Sets the request's principal; a body the tier cannot take is refused from its declared length (413). */
function admit(request: FastifyRequest, principal: ToolPrincipal): undefined {
  request.toolPrincipal = principal;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > principal.limits.maxBodyBytes) {
    throw new AppError('payload_too_large', {
      message: `The body is larger than the ${principal.limits.maxBodyBytes} bytes allowed for this tier.`,
    });
  }
  return undefined;
}

/** The name tool routes give in `config.authBy.scheme`. */
export const TOOL_AUTH_SCHEME = 'tool-api-key';

/**
 * The tool API's authentication as a scheme of the service's one auth hook (http/auth-scheme.ts): the
 * route's requirement is the tool it runs; on success the request carries `toolPrincipal`, and a body the
 * tier cannot take is refused from its declared length before a byte of it is read (413).
 */
export function toolAuthScheme(db: Db, cache: ToolAuthCache, lastUsed: LastUsedWriter, now: () => Date): AuthScheme {
  return {
    name: TOOL_AUTH_SCHEME,
    // the tools; the hook checks a route's requirement against them at registration
    requirements: Object.keys(TOOL_SCOPES),
    // at once for a key remembered under the current version (most requests); a promise when it is read
    authorize(request, _reply, requirement) {
      const { credential, prefix } = presentedKey(request);
      const tool = requirement as ToolName;
      const found = prefix ? cache.findByPrefix(db, prefix) : null;
      if (found instanceof Promise) return found.then((record) => admit(request, principalOf(record, credential, tool, lastUsed, now())));
      return admit(request, principalOf(found, credential, tool, lastUsed, now()));
    },
  };
}
